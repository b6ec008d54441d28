/**
 * Review of issue 39 (area 3): a listed record is taken as the whole scan (status.ts
 * `isFullScan`) only when it holds what GET /scans/{id} gives for its status. Through n8n-core
 * against the sandbox, behind a small front server that changes one field of the listed records
 * of GET /scans (the spec: "Response envelope of GET /scans: not shown"; it returns "a list of
 * scans" without saying whether they are whole).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { isFullScan } from '../../nodes/shared/scans/status';
import { getManyParams, jsonOf, run, useSandbox } from '../node/helpers';

const sb = useSandbox();

/** A front server: GET /scans answers with `change` applied to every listed record. */
async function front(
	change: (record: IDataObject) => void,
): Promise<{ base: string; close: () => Promise<void> }> {
	const target = new URL(sb.get().baseUrl);
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', target.origin);
		const headers = { ...req.headers, host: target.host };
		const upstream = http.request(url, { method: req.method, headers }, (answer) => {
			const chunks: Buffer[] = [];
			answer.on('data', (c: Buffer) => chunks.push(c));
			answer.on('end', () => {
				let body = Buffer.concat(chunks);
				const listing = req.method === 'GET' && /\/scans$/.test(url.pathname);
				if (listing && answer.statusCode === 200) {
					const parsed = JSON.parse(body.toString()) as IDataObject | IDataObject[];
					const list = Array.isArray(parsed) ? parsed : (parsed.data as IDataObject[]);
					for (const record of list) change(record);
					body = Buffer.from(JSON.stringify(parsed));
				}
				const out = { ...answer.headers, 'content-length': String(body.length) };
				delete out['transfer-encoding'];
				res.writeHead(answer.statusCode ?? 502, out);
				res.end(body);
			});
		});
		req.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		base: `http://127.0.0.1:${port}${target.pathname}`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
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
	['validation_failed', 'confidence', 'a validation_failed scan listed with confidence null'],
] as const)('Get Many, Status = %s', (status, field, what) => {
	test.failing(`DEFECT: ${what} is output as listed, not as read by ID`, async () => {
		const [id] = sb.get().control.seedScans({ count: 1, status });
		const proxy = await front((record) => {
			record[field] = null;
		});
		try {
			const direct = jsonOf(
				await run(sb.env(), { resource: 'scan', operation: 'get', scanId: String(id) }),
			);
			expect(direct[0][field]).not.toBeNull();
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
	test.failing('DEFECT: failed with error_message null is taken as whole', () => {
		expect(isFullScan(whole({ status: 'failed', extracted_data: null, error_message: null }))).toBe(
			false,
		);
	});
	test.failing('DEFECT: completed with confidence null is taken as whole', () => {
		expect(isFullScan(whole({ confidence: null }))).toBe(false);
	});
});
