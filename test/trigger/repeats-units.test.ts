/**
 * Unit tests of the record of recent deliveries (repeats.ts) and of the delivery key
 * (deliveryKey.ts): the window, the bound, hostile static data, and what a key is made of.
 */
import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { deliveryKey } from '../../nodes/DocumentScanningTrigger/deliveryKey';
import {
	firstReceivedAt,
	MAX_REMEMBERED,
	RECORD_FIELD,
	remember,
	repeatWindowSeconds,
	REPEAT_WINDOW_MIN_SECONDS,
} from '../../nodes/DocumentScanningTrigger/repeats';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 0, 1);

describe('the repeat window', () => {
	it('is the replay tolerance, at least an hour (also with the check off)', () => {
		expect(REPEAT_WINDOW_MIN_SECONDS).toBe(3_600);
		expect(repeatWindowSeconds(300)).toBe(3_600);
		expect(repeatWindowSeconds(0)).toBe(3_600);
		expect(repeatWindowSeconds(86_400)).toBe(86_400);
	});

	it('a key is known within the window and forgotten after it', () => {
		const stored: IDataObject = {};
		remember(stored, 'scan.completed:1', T, 3_600);
		expect(firstReceivedAt(stored, 'scan.completed:1', T + HOUR, 3_600)).toBe(T);
		expect(firstReceivedAt(stored, 'scan.completed:1', T + HOUR + 1, 3_600)).toBeUndefined();
		expect(firstReceivedAt(stored, 'scan.completed:2', T, 3_600)).toBeUndefined();
	});

	it('remembering drops keys older than the window and keeps the others with their first time', () => {
		const stored: IDataObject = {};
		remember(stored, 'a:1', T, 3_600);
		remember(stored, 'a:2', T + HOUR / 2, 3_600);
		expect(remember(stored, 'a:3', T + HOUR + 1, 3_600)).toBe(0);
		expect(stored[RECORD_FIELD]).toEqual({ 'a:2': T + HOUR / 2, 'a:3': T + HOUR + 1 });
	});
});

describe('the record', () => {
	it('lives in static data under "recentDeliveries" (a new name would forget every record on upgrade)', () => {
		expect(RECORD_FIELD).toBe('recentDeliveries');
	});

	it('a key exactly at the end of the window is still known and kept', () => {
		const stored: IDataObject = {};
		remember(stored, 'a:1', T, 3_600);
		expect(firstReceivedAt(stored, 'a:1', T + HOUR, 3_600)).toBe(T);
		remember(stored, 'a:2', T + HOUR, 3_600);
		expect(Object.keys(stored[RECORD_FIELD] as IDataObject)).toEqual(['a:1', 'a:2']);
	});
});

describe('the bound', () => {
	it('remembering a key the record holds again moves it to now and forgets no other key', () => {
		const stored: IDataObject = {};
		for (let i = 0; i < MAX_REMEMBERED; i += 1) remember(stored, `k:${i}`, T + i, 3_600);
		expect(remember(stored, 'k:3', T + MAX_REMEMBERED, 3_600)).toBe(0);
		const record = stored[RECORD_FIELD] as IDataObject;
		expect(Object.keys(record)).toHaveLength(MAX_REMEMBERED);
		expect(record['k:3']).toBe(T + MAX_REMEMBERED);
		expect(record['k:0']).toBe(T);
	});

	it(`keeps at most ${MAX_REMEMBERED} keys, drops the oldest first and says how many were still in the window`, () => {
		const stored: IDataObject = {};
		for (let i = 0; i < MAX_REMEMBERED; i += 1)
			expect(remember(stored, `k:${i}`, T + i, 3_600)).toBe(0);
		expect(remember(stored, 'k:new', T + MAX_REMEMBERED, 3_600)).toBe(1);
		const keys = Object.keys(stored[RECORD_FIELD] as IDataObject);
		expect(keys).toHaveLength(MAX_REMEMBERED);
		expect(keys).not.toContain('k:0');
		expect(keys[keys.length - 1]).toBe('k:new');
		expect(firstReceivedAt(stored, 'k:1', T + MAX_REMEMBERED, 3_600)).toBe(T + 1);
	});

	it('orders by time, not by the order keys were written in (processes with skewed clocks)', () => {
		const stored: IDataObject = {
			[RECORD_FIELD]: Object.fromEntries(
				Array.from({ length: MAX_REMEMBERED }, (_, i) => [`k:${i}`, T + (i === 5 ? -1 : i)]),
			),
		};
		remember(stored, 'k:new', T + MAX_REMEMBERED, 3_600);
		const record = stored[RECORD_FIELD] as IDataObject;
		expect(record).not.toHaveProperty('k:5');
		expect(record).toHaveProperty('k:0');
	});
});

describe('hostile static data', () => {
	it.each([
		['not an object', 'x'],
		['an array', [['scan.completed:1', T]]],
		['null', null],
	])('a record that is %s counts as empty and is replaced', (_label, record) => {
		const stored: IDataObject = { [RECORD_FIELD]: record as never, webhookSecret: 's' };
		expect(firstReceivedAt(stored, 'scan.completed:1', T, 3_600)).toBeUndefined();
		remember(stored, 'scan.completed:1', T, 3_600);
		expect(stored).toEqual({ [RECORD_FIELD]: { 'scan.completed:1': T }, webhookSecret: 's' });
	});

	it('entries that are not finite numbers are ignored and dropped', () => {
		const stored: IDataObject = {
			[RECORD_FIELD]: { 'a:1': 'yesterday', 'a:2': null, 'a:3': Number.NaN, 'a:4': T },
		};
		expect(firstReceivedAt(stored, 'a:1', T, 3_600)).toBeUndefined();
		expect(firstReceivedAt(stored, 'a:4', T, 3_600)).toBe(T);
		remember(stored, 'a:5', T, 3_600);
		expect(stored[RECORD_FIELD]).toEqual({ 'a:4': T, 'a:5': T });
	});

	it('a key with the text "__proto__" in it stays data', () => {
		const stored: IDataObject = {};
		remember(stored, '__proto__', T, 3_600);
		expect(Object.getPrototypeOf(stored[RECORD_FIELD])).toBe(Object.prototype);
		expect(firstReceivedAt(stored, '__proto__', T, 3_600)).toBe(T);
	});
});

describe('the delivery key', () => {
	const key = (raw: string, event = 'scan.completed') =>
		deliveryKey(event, raw, Buffer.from(raw, 'utf8'));

	it('is the event and the exact signed digits of data.scan_id, written as a number or a string', () => {
		expect(key('{"data":{"scan_id":42}}')).toBe('scan.completed:42');
		expect(key('{"data":{"scan_id":"42"}}')).toBe('scan.completed:42');
		expect(key('{"data":{"scan_id":12345678901234567890}}')).toBe(
			'scan.completed:12345678901234567890',
		);
		expect(key('{"data":{"scan_id":42}}', 'scan.failed')).toBe('scan.failed:42');
	});

	it.each(['0', '-1', '1.5', '"007"', 'null', '{"id":1}', '"x"'])(
		'scan_id %s: the SHA-256 of the signed bytes (only the same bytes repeat)',
		(literal) => {
			const raw = `{"event":"scan.completed","data":{"scan_id":${literal}}}`;
			expect(key(raw)).toBe(`sha256:${createHash('sha256').update(raw).digest('hex')}`);
		},
	);

	it('a body without data, or not readable for it, gets the digest too', () => {
		expect(key('{"event":"scan.completed"}')).toMatch(/^sha256:[0-9a-f]{64}$/);
		expect(key('['.repeat(20_000))).toMatch(/^sha256:[0-9a-f]{64}$/);
	});
});
