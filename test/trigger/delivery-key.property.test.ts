/**
 * Property-based tests (fast-check, fixed seeds) of the delivery key (deliveryKey.ts, issue 33
 * §2) over every body shape the trigger accepts: `data.scan_id` as a number or a digit string,
 * `data.id` (a scan.failed shape), no usable scan ID (samples, 0, negatives), no `data`, odd and
 * hostile members, any nesting. The key is read as the trigger reads it: scanId.ts and
 * deliveryKey on the parsed body.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { deliveryKey } from '../../nodes/DocumentScanningTrigger/deliveryKey';
import { scanIdFromDelivery } from '../../nodes/DocumentScanningTrigger/scanId';
import { runs } from '../support/property-runs';

/** The key of raw bytes as the trigger computes it. */
function keyOfRaw(raw: string): string {
	const body = JSON.parse(raw) as IDataObject;
	const scanId = scanIdFromDelivery(body);
	return deliveryKey(String(body.event), body, 'id' in scanId ? scanId.id : undefined);
}

const json = fc.jsonValue({ maxDepth: 4 });
const extracted = fc.dictionary(
	fc.string({ maxLength: 8 }).filter((key) => !/^timestamp$|_at$|^(scan_)?id$/.test(key)),
	json,
	{ maxKeys: 5 },
);
const status = fc.constantFrom('completed', 'validation_failed', 'failed', 'processing', 'odd');
const timestamp = fc
	.integer({ min: 0, max: 4_000_000_000_000 })
	.map((ms) => new Date(ms).toISOString());
/** How the body names its scan: data.scan_id as number or string, data.id, or nothing usable. */
const naming = fc.oneof(
	fc.integer({ min: 1, max: 10 ** 9 }).map((id) => ({ scan_id: id })),
	fc.integer({ min: 1, max: 10 ** 9 }).map((id) => ({ scan_id: String(id) })),
	fc.integer({ min: 1, max: 10 ** 9 }).map((id) => ({ id })),
	fc.constantFrom({ scan_id: 0 }, { scan_id: -1 }, { scan_id: '007' }, {}),
);
const body = fc.record({
	event: fc.constantFrom('scan.completed', 'scan.failed'),
	timestamp,
	naming,
	status,
	result: extracted,
	times: fc.record({ updated_at: timestamp, created_at: timestamp }),
	extra: fc.dictionary(
		fc.constantFrom('filename', 'template_id', 'confidence', 'is_partial'),
		json,
	),
});
type Body = typeof body extends fc.Arbitrary<infer T> ? T : never;

function bytes(
	b: Body,
	{ reorder = false, space = false, stamp = b.timestamp, times = b.times } = {},
): string {
	const data: IDataObject = {
		...b.naming,
		status: b.status,
		...b.extra,
		extracted_data: b.result,
		...times,
	};
	const ordered = reorder ? Object.fromEntries(Object.entries(data).reverse()) : data;
	const whole = { event: b.event, timestamp: stamp, data: ordered };
	return JSON.stringify(
		reorder ? { data: ordered, timestamp: stamp, event: b.event } : whole,
		null,
		space ? 2 : undefined,
	);
}

describe('the delivery key over every accepted body shape', () => {
	test('the same result sent again, signed anew with a new timestamp, re-serialised (key order, spacing), or with new *_at times keeps its key', () => {
		fc.assert(
			fc.property(body, timestamp, fc.boolean(), fc.boolean(), (b, later, reorder, space) => {
				const again = bytes(b, {
					reorder,
					space,
					stamp: later,
					times: { updated_at: later, created_at: later },
				});
				expect(keyOfRaw(again)).toBe(keyOfRaw(bytes(b)));
			}),
			runs(330201, 300),
		);
	});

	test('a new result of the same scan (another status or other content) gets another key; so does another scan or event', () => {
		fc.assert(
			fc.property(body, status, extracted, (b, otherStatus, otherResult) => {
				fc.pre(
					otherStatus !== b.status || JSON.stringify(otherResult) !== JSON.stringify(b.result),
				);
				const first = keyOfRaw(bytes(b));
				expect(keyOfRaw(bytes({ ...b, status: otherStatus, result: otherResult }))).not.toBe(first);
				const otherEvent = b.event === 'scan.completed' ? 'scan.failed' : 'scan.completed';
				expect(keyOfRaw(bytes({ ...b, event: otherEvent }))).not.toBe(first);
			}),
			runs(330202, 300),
		);
	});

	test('a key names the event and the scan it was read from, or is a digest when the body names none', () => {
		fc.assert(
			fc.property(body, (b) => {
				const raw = bytes(b);
				const scanId = scanIdFromDelivery(JSON.parse(raw) as IDataObject);
				const key = keyOfRaw(raw);
				if ('id' in scanId)
					expect(key).toMatch(new RegExp(`^${b.event}:${scanId.id}:[0-9a-f]{16}$`));
				else expect(key).toMatch(/^sha256:[0-9a-f]{16}$/);
			}),
			runs(330203, 300),
		);
	});

	test('a scan ID written as a string or a number is the same scan', () => {
		fc.assert(
			fc.property(body, fc.integer({ min: 1, max: 10 ** 9 }), (b, id) => {
				expect(keyOfRaw(bytes({ ...b, naming: { scan_id: String(id) } }))).toBe(
					keyOfRaw(bytes({ ...b, naming: { scan_id: id } })),
				);
			}),
			runs(330204, 300),
		);
	});

	test('hostile bodies (any JSON object, deep nesting) give a key and never throw', () => {
		fc.assert(
			fc.property(
				fc.dictionary(fc.string({ maxLength: 6 }), json),
				fc.integer({ min: 1, max: 3000 }),
				(other, depth) => {
					const raw = JSON.stringify({
						...other,
						event: 'scan.completed',
						deep: JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`),
					});
					expect(keyOfRaw(raw)).toMatch(/^(scan\.completed:\d+:|sha256:)[0-9a-f]{16}$/);
				},
			),
			runs(330205, 100),
		);
	});
});
