/**
 * Review of issue 39 (area 3): a listed record is taken as the whole scan (status.ts
 * `isFullScan`) only when it holds what GET /scans/{id} gives for its status. Through n8n-core
 * against the sandbox, behind a small front server that changes one field of the listed records
 * of GET /scans (the spec: "Response envelope of GET /scans: not shown"; it returns "a list of
 * scans" without saying whether they are whole).
 */
import type { IDataObject } from 'n8n-workflow';

import { isFullScan } from '../../nodes/shared/scans/status';
import { getManyParams, jsonOf, run, useSandbox } from '../node/helpers';
import { jsonBody, startFront } from './rev39-front';

const sb = useSandbox();

/** A front server: GET /scans answers with `change` applied to every listed record. */
async function front(change: (record: IDataObject) => void) {
	return await startFront(sb.get().baseUrl, (request, answer) => {
		if (request.method !== 'GET' || !/\/scans$/.test(request.path) || answer.status !== 200)
			return answer;
		const parsed = jsonBody(answer) as IDataObject | IDataObject[];
		const list = Array.isArray(parsed) ? parsed : (parsed.data as IDataObject[]);
		for (const record of list) change(record);
		return { ...answer, body: Buffer.from(JSON.stringify(parsed)) };
	});
}

describe.each([
	[
		'failed',
		'error_message',
		'a failed scan listed with error_message null (GET /scans/{id} gives the cause)',
	],
	[
		'completed',
		'confidence',
		'a completed scan listed with confidence null (the spec: an integer, 0 to 100)',
	],
	['validation_failed', 'confidence', 'a validation_failed scan listed with confidence null', null],
	[
		'validation_failed',
		'validation_errors',
		'a validation_failed scan listed with validation_errors [] (the spec: at least one rule was violated, details are in validation_errors)',
		[],
	],
] as const)('Get Many, Status = %s', (status, field, what, value = null) => {
	test(`fixed: ${what} is output as listed, not as read by ID`, async () => {
		const [id] = sb.get().control.seedScans({ count: 1, status });
		const proxy = await front((record) => {
			record[field] = value === null ? null : [...value];
		});
		try {
			const direct = jsonOf(
				await run(sb.env(), { resource: 'scan', operation: 'get', scanId: String(id) }),
			);
			expect(direct[0][field]).not.toEqual(value);
			const result = await run(sb.env({ baseUrl: proxy.base }), getManyParams(status));
			expect(result.error).toBeUndefined();
			const [scan] = jsonOf(result);
			expect(scan.id).toBe(id);
			expect(scan[field]).toEqual(direct[0][field]);
		} finally {
			await proxy.close();
		}
	});
});

test('control: the front server passes records through: a listed failed scan is output with its cause', async () => {
	const [id] = sb.get().control.seedScans({ count: 1, status: 'failed' });
	const proxy = await front(() => undefined);
	try {
		const result = await run(sb.env({ baseUrl: proxy.base }), getManyParams('failed'));
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)).toEqual([
			expect.objectContaining({ id, error_message: expect.any(String) }),
		]);
	} finally {
		await proxy.close();
	}
});

describe('isFullScan on records GET /scans/{id} would not give', () => {
	const whole = (extra: IDataObject): IDataObject => ({
		id: 7,
		status: 'completed',
		filename: 'a.pdf',
		template_id: 1,
		confidence: 90,
		extracted_data: { total: 1 },
		reviewed_data: null,
		validation_errors: null,
		is_partial: false,
		error_message: null,
		created_at: '2026-01-01T00:00:00+00:00',
		updated_at: '2026-01-01T00:00:01+00:00',
		...extra,
	});
	test('a whole completed record is the scan', () => {
		expect(isFullScan(whole({}))).toBe(true);
	});
	test('fixed: failed with error_message null is taken as whole', () => {
		expect(isFullScan(whole({ status: 'failed', extracted_data: null, error_message: null }))).toBe(
			false,
		);
	});
	test('fixed: validation_failed with validation_errors [] is taken as whole', () => {
		expect(isFullScan(whole({ status: 'validation_failed', validation_errors: [] }))).toBe(false);
	});
	test('fixed: completed with confidence null is taken as whole', () => {
		expect(isFullScan(whole({ confidence: null }))).toBe(false);
	});
});
