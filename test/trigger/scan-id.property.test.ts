/**
 * Property-based tests (fast-check, fixed seeds) of the scan a delivery names (scanId.ts), which
 * "Include Full Scan" requests and the delivery key names: on any body it answers, never throws;
 * an ID is always a positive integer written in digits; a number JSON.parse cannot read exactly
 * is refused, never rounded.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { scanIdFromDelivery } from '../../nodes/DocumentScanningTrigger/scanId';
import { runs } from '../support/property-runs';

const RUNS = runs(170517, 400);
const value = fc.oneof(
	fc.jsonValue({ maxDepth: 2 }),
	fc.bigInt({ min: 1n, max: 10n ** 30n }).map((n) => Number(n)),
	fc.bigInt({ min: 1n, max: 10n ** 30n }).map((n) => n.toString()),
);

describe('scanIdFromDelivery', () => {
	it('never throws; an id is always a positive integer written in digits, from data.scan_id, else data.id', () => {
		fc.assert(
			fc.property(value, value, fc.jsonValue(), (scanId, id, data) => {
				for (const body of [{ data: { scan_id: scanId, id } }, { data }, { data: { id } }]) {
					const result = scanIdFromDelivery(JSON.parse(JSON.stringify(body)) as IDataObject);
					if ('id' in result) expect(result.id).toMatch(/^[1-9][0-9]*$/);
					else expect(result.problem).toMatch(/data\.(scan_)?id|names no data\.scan_id/);
				}
			}),
			RUNS,
		);
	});

	it('a positive integer JSON reads exactly, as a number or a string, is read as it is', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
				fc.boolean(),
				(id, asString) => {
					const body = { data: { other: 1, scan_id: asString ? String(id) : id } };
					expect(scanIdFromDelivery(body)).toEqual({ id: String(id) });
				},
			),
			RUNS,
		);
	});

	it('a number beyond 2^53 is refused as too large to be read exactly (never a rounded request)', () => {
		fc.assert(
			fc.property(fc.bigInt({ min: 2n ** 53n + 1n, max: 10n ** 30n }), (id) => {
				const body = JSON.parse(`{"data":{"scan_id":${id}}}`) as IDataObject;
				expect(scanIdFromDelivery(body)).toEqual({
					problem: expect.stringContaining(
						'data.scan_id of the delivery is too large to be read exactly',
					),
				});
				// As a string of digits it is exact.
				expect(scanIdFromDelivery({ data: { scan_id: id.toString() } })).toEqual({
					id: id.toString(),
				});
			}),
			RUNS,
		);
	});
});
