/**
 * Unit tests of the record of recent deliveries (repeats.ts) and of the delivery key
 * (deliveryKey.ts): the window, the bound and what it forgets, hostile static data, and what a
 * key is made of. The properties over every body shape are in delivery-key.property.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { deliveryKey } from '../../nodes/DocumentScanningTrigger/deliveryKey';
import {
	FORGOTTEN_FIELD,
	firstReceivedAt,
	forgottenUpTo,
	MAX_REMEMBERED,
	RECORD_FIELD,
	remember,
	repeatWindowSeconds,
	REPEAT_WINDOW_MIN_SECONDS,
} from '../../nodes/DocumentScanningTrigger/repeats';
import { replayProblem } from '../../nodes/DocumentScanningTrigger/replay';
import { keyOf, resultDigest } from './helpers';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 0, 1);

describe('the repeat window', () => {
	it('is the replay tolerance, at least an hour (also with the check off)', () => {
		expect(REPEAT_WINDOW_MIN_SECONDS).toBe(3_600);
		expect(repeatWindowSeconds(300)).toBe(3_600);
		expect(repeatWindowSeconds(0)).toBe(3_600);
		expect(repeatWindowSeconds(86_400)).toBe(86_400);
	});

	it('a key is known within the window from its signed time and forgotten after it', () => {
		const stored: IDataObject = {};
		remember(stored, 'scan.completed:1:a', T - 60_000, T, 3_600);
		expect(firstReceivedAt(stored, 'scan.completed:1:a', T - 60_000 + HOUR, 3_600)).toBe(
			T - 60_000,
		);
		expect(firstReceivedAt(stored, 'scan.completed:1:a', T - 60_000 + HOUR + 1, 3_600)).toBe(
			undefined,
		);
		expect(firstReceivedAt(stored, 'scan.completed:2:a', T, 3_600)).toBeUndefined();
	});

	it('remembering drops keys past the window without forgetting anything inside it', () => {
		const stored: IDataObject = {};
		remember(stored, 'a:1', T, T, 3_600);
		remember(stored, 'a:2', T + HOUR / 2, T + HOUR / 2, 3_600);
		expect(remember(stored, 'a:3', T + HOUR + 1, T + HOUR + 1, 3_600)).toBeUndefined();
		expect(stored[RECORD_FIELD]).toEqual({ 'a:2': T + HOUR / 2, 'a:3': T + HOUR + 1 });
		expect(forgottenUpTo(stored)).toBe(-Infinity);
	});

	it('lives in static data under "recentDeliveries" (a new name would forget every record on upgrade)', () => {
		expect(RECORD_FIELD).toBe('recentDeliveries');
		expect(FORGOTTEN_FIELD).toBe('forgottenUpTo');
	});
});

describe('the bound: the tolerance shrinks, no key inside it is forgotten silently', () => {
	it(`keeps at most ${MAX_REMEMBERED} keys; the oldest by signed time goes and marks what is now late`, () => {
		const stored: IDataObject = {};
		for (let i = 0; i < MAX_REMEMBERED; i += 1)
			expect(remember(stored, `k:${i}`, T + i, T + i, 3_600)).toBeUndefined();
		expect(remember(stored, 'k:new', T + MAX_REMEMBERED, T + MAX_REMEMBERED, 3_600)).toBe(T);
		const keys = Object.keys(stored[RECORD_FIELD] as IDataObject);
		expect(keys).toHaveLength(MAX_REMEMBERED);
		expect(keys).not.toContain('k:0');
		expect(forgottenUpTo(stored)).toBe(T);
		// A replay of the forgotten delivery is late, not run; one signed after it is not late.
		expect(replayProblem(new Date(T).toISOString(), 300, T + 1_000, T)).toMatch(
			/before what the record of repeated deliveries still covers/,
		);
		expect(replayProblem(new Date(T + 1).toISOString(), 300, T + 1_000, T)).toBeUndefined();
	});

	it('orders by signed time, not by the order keys were written in, and the mark only grows', () => {
		const stored: IDataObject = {
			[RECORD_FIELD]: Object.fromEntries(
				Array.from({ length: MAX_REMEMBERED }, (_, i) => [`k:${i}`, T + (i === 5 ? -1 : i)]),
			),
			[FORGOTTEN_FIELD]: T - 10,
		};
		expect(remember(stored, 'k:new', T + MAX_REMEMBERED, T + MAX_REMEMBERED, 3_600)).toBe(T - 1);
		const record = stored[RECORD_FIELD] as IDataObject;
		expect(record).not.toHaveProperty('k:5');
		expect(record).toHaveProperty('k:0');
		stored[FORGOTTEN_FIELD] = T + 5_000;
		remember(stored, 'k:newer', T + 2 * MAX_REMEMBERED, T + 2 * MAX_REMEMBERED, 3_600);
		expect(forgottenUpTo(stored)).toBe(T + 5_000);
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
		remember(stored, 'scan.completed:1', T, T, 3_600);
		expect(stored).toEqual({ [RECORD_FIELD]: { 'scan.completed:1': T }, webhookSecret: 's' });
	});

	it('entries that are not finite numbers, and a mark that is not one, are ignored', () => {
		const stored: IDataObject = {
			[RECORD_FIELD]: { 'a:1': 'yesterday', 'a:2': null, 'a:3': Number.NaN, 'a:4': T },
			[FORGOTTEN_FIELD]: 'always',
		};
		expect(firstReceivedAt(stored, 'a:1', T, 3_600)).toBeUndefined();
		expect(firstReceivedAt(stored, 'a:4', T, 3_600)).toBe(T);
		expect(forgottenUpTo(stored)).toBe(-Infinity);
		remember(stored, 'a:5', T, T, 3_600);
		expect(stored[RECORD_FIELD]).toEqual({ 'a:4': T, 'a:5': T });
	});

	it('a key with the text "__proto__" in it stays data', () => {
		const stored: IDataObject = {};
		remember(stored, '__proto__', T, T, 3_600);
		expect(Object.getPrototypeOf(stored[RECORD_FIELD])).toBe(Object.prototype);
		expect(firstReceivedAt(stored, '__proto__', T, 3_600)).toBe(T);
	});
});

describe('the delivery key', () => {
	const data = {
		scan_id: 42,
		filename: 'a.pdf',
		status: 'completed',
		extracted_data: { total: 1 },
	};

	it('is the event, the scan ID and a digest of the result (as the reference states it)', () => {
		const body = { event: 'scan.completed', timestamp: '2026-01-01T00:00:00+00:00', data };
		expect(deliveryKey('scan.completed', body, '42')).toBe(keyOf(body, '42'));
		expect(keyOf(body, '42')).toBe(`scan.completed:42:${resultDigest(data, true)}`);
		expect(resultDigest(data)).toMatch(/^[0-9a-f]{16}$/);
	});

	it('a new result of the same scan (processed again, completed after validation_failed) gets a new key', () => {
		const first = { event: 'scan.completed', data: { ...data, status: 'validation_failed' } };
		const again = { event: 'scan.completed', data };
		expect(deliveryKey('scan.completed', first, '42')).not.toBe(
			deliveryKey('scan.completed', again, '42'),
		);
	});

	it('a body without a scan ID: the digest of the body without its timestamp', () => {
		const sample = { event: 'scan.completed', timestamp: 'x', data: { ...data, scan_id: 0 } };
		expect(deliveryKey('scan.completed', sample, undefined)).toBe(keyOf(sample));
		expect(deliveryKey('scan.completed', { ...sample, timestamp: 'y' }, undefined)).toBe(
			keyOf(sample),
		);
		expect(keyOf(sample)).toMatch(/^sha256:[0-9a-f]{16}$/);
	});
});
