/**
 * Narrow unit tests of the trigger's pure helpers: the scan a delivery names, and the timestamp
 * parsing and tolerance arithmetic of the replay check
 * (with a fixed "now", so the boundaries are exact).
 */

import type { IDataObject } from 'n8n-workflow';
import {
	parseTimestamp,
	replayProblem,
	replayToleranceSeconds,
} from '../../nodes/DocumentScanningTrigger/replay';
import { scanIdFromDelivery } from '../../nodes/DocumentScanningTrigger/scanId';

describe('scanIdFromDelivery', () => {
	const scanIdOf = (raw: string) => scanIdFromDelivery(JSON.parse(raw) as IDataObject);

	it.each([
		['{"data":{"scan_id":42}}', '42'],
		['{"data":{"scan_id":"42"}}', '42'],
		['{"data":{"scan_id":"\\u0034\\u0032"}}', '42'],
		['{"data":{"scan_id":3e2}}', '300'],
		['{"data":{"scan_id":"99999999999999999999999"}}', '99999999999999999999999'],
		['{"data":{"scan_id":5,"scan_id":7}}', '7'],
	])('%s -> %s', (raw, id) => {
		expect(scanIdOf(raw)).toEqual({ id });
	});

	it.each(['0', '-3', '3.5', '"3 "', '"+3"', '"0x1F"', '"%2e%2e"', '"007"', '[3]', 'false'])(
		'refuses %s',
		(literal) => {
			expect(scanIdOf(`{"data":{"scan_id":${literal}}}`)).toEqual({
				problem: expect.stringContaining('positive integer'),
			});
		},
	);

	it('refuses a number JSON.parse cannot read exactly, never rounding it', () => {
		expect(scanIdOf('{"data":{"scan_id":12345678901234567890}}')).toEqual({
			problem: expect.stringContaining('too large to be read exactly'),
		});
	});

	it('quotes at most 40 characters of a refused value', () => {
		const long = 'x'.repeat(100);
		const result = scanIdOf(`{"data":{"scan_id":"${long}"}}`) as { problem: string };
		expect(result.problem).toContain(`(${JSON.stringify('x'.repeat(40))})`);
		expect(result.problem).not.toContain('x'.repeat(41));
	});

	it('names a missing scan_id', () => {
		expect(scanIdOf('{"event":"scan.failed","data":{}}')).toEqual({
			problem: expect.stringContaining('names no data.scan_id (nor data.id)'),
		});
		expect(scanIdOf('{"event":"scan.failed"}')).toEqual({
			problem: expect.stringContaining('names no data.scan_id (nor data.id)'),
		});
	});

	it('takes data.id when data.scan_id is missing or null (a scan.failed shape), never when scan_id is refused', () => {
		expect(scanIdOf('{"data":{"id":42}}')).toEqual({ id: '42' });
		expect(scanIdOf('{"data":{"scan_id":null,"id":"43"}}')).toEqual({ id: '43' });
		expect(scanIdOf('{"data":{"scan_id":0,"id":44}}')).toEqual({
			problem: expect.stringContaining('data.scan_id of the delivery is not a positive integer'),
		});
		expect(scanIdOf('{"data":{"id":-1}}')).toEqual({
			problem: expect.stringContaining('data.id of the delivery is not a positive integer'),
		});
	});
});

describe('parseTimestamp', () => {
	it.each([
		['2024-05-01T12:00:00+00:00', Date.UTC(2024, 4, 1, 12)],
		['2024-05-01T12:00:00Z', Date.UTC(2024, 4, 1, 12)],
		['2024-05-01T14:00:00+02:00', Date.UTC(2024, 4, 1, 12)],
		['2024-05-01T06:30:00-0530', Date.UTC(2024, 4, 1, 12)],
		['2024-05-01T12:00:00.123456+00:00', Date.UTC(2024, 4, 1, 12, 0, 0, 123)],
		['2024-02-29T00:00:00-00:00', Date.UTC(2024, 1, 29)],
		['0099-01-01T00:00:00Z', -59042995200000],
		['2024-05-01T12:00:00.5Z', Date.UTC(2024, 4, 1, 12, 0, 0, 500)],
		['2024-05-01T12:00:00.999999999Z', Date.UTC(2024, 4, 1, 12, 0, 0, 999)],
		['2024-12-31T23:59:59+23:59', Date.UTC(2024, 11, 31, 0, 0, 59)],
		['2024-01-31T00:00:00-00:01', Date.UTC(2024, 0, 31, 0, 1)],
	])('%s', (text, ms) => {
		expect(parseTimestamp(text)).toBe(ms);
	});

	it.each([
		'2024-05-01T12:00:00',
		'2024-05-01 12:00:00+00:00',
		'2024-05-01',
		'2023-02-29T00:00:00Z',
		'2024-13-01T00:00:00Z',
		'2024-04-31T00:00:00Z',
		'2024-05-01T24:00:00Z',
		'2024-05-01T12:60:00Z',
		'2024-05-01T12:00:60Z',
		'2024-05-01T12:00:00+24:00',
		'2024-05-01T12:00:00+02',
		'1714564800',
		'',
		'2024-00-01T12:00:00Z',
		'2024-05-00T12:00:00Z',
		'2024-05-01T12:00:00+02:60',
		'2024-05-01T12:00:00.1234567891Z',
		'2024-05-01T12:00:00.Z',
		'2024-05-01T12:00:00z',
		' 2024-05-01T12:00:00Z',
		'2024-05-01T12:00:00Z ',
	])('refuses %j', (text) => {
		expect(parseTimestamp(text)).toBeUndefined();
	});

	it('refuses non-strings', () => {
		expect(parseTimestamp(1714564800)).toBeUndefined();
		expect(parseTimestamp(null)).toBeUndefined();
		expect(parseTimestamp(undefined)).toBeUndefined();
	});
});

describe('replayProblem with a fixed clock', () => {
	const now = Date.UTC(2026, 10, 23, 12, 0, 0);
	const at = (offsetSeconds: number) =>
		new Date(now + offsetSeconds * 1000).toISOString().replace('.000Z', '+00:00');

	it('accepts exactly the tolerance on both sides, refuses one second more', () => {
		expect(replayProblem(at(-300), 300, now)).toBeUndefined();
		expect(replayProblem(at(300), 300, now)).toBeUndefined();
		expect(replayProblem(at(-301), 300, now)).toMatch(/301 s in the past/);
		expect(replayProblem(at(301), 300, now)).toMatch(/301 s in the future/);
	});

	it('the boundary is exact to the millisecond, and the message rounds to seconds', () => {
		expect(replayProblem(new Date(now - 300_000).toISOString(), 300, now + 1)).toMatch(
			/^The delivery's timestamp is 300 s in the past, outside the replay tolerance of 300 s/,
		);
		expect(replayProblem(new Date(now + 300_001).toISOString(), 300, now)).toMatch(
			/is 300 s in the future/,
		);
		expect(replayProblem(new Date(now - 1_000).toISOString(), 0.5, now)).toMatch(
			/1 s in the past, outside the replay tolerance of 0.5 s \(check that the n8n server's clock is right\)$/,
		);
	});

	it('0 turns the check off, even for a missing timestamp', () => {
		expect(replayProblem('2020-01-01T00:00:00+00:00', 0, now)).toBeUndefined();
		expect(replayProblem(undefined, 0, now)).toBeUndefined();
		expect(replayProblem(undefined, 300, now)).toMatch(/no timestamp/);
	});

	it("the option value: the version's default (300 in version 1, 3600 from 1.1), numbers and numeric strings kept, nonsense falls back to it", () => {
		for (const [version, fallback] of [
			[1, 300],
			[1.1, 3600],
		]) {
			const tolerance = (raw: unknown) => replayToleranceSeconds(raw, version);
			expect(tolerance(undefined)).toBe(fallback);
			expect(tolerance(null)).toBe(fallback);
			expect(tolerance(0.5)).toBe(0.5);
			expect(tolerance('')).toBe(fallback);
			expect(tolerance(0)).toBe(0);
			expect(tolerance(30)).toBe(30);
			expect(tolerance('600')).toBe(600);
			expect(tolerance(-1)).toBe(fallback);
			expect(tolerance('abc')).toBe(fallback);
			expect(tolerance(Number.POSITIVE_INFINITY)).toBe(fallback);
		}
	});
});
