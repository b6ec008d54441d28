/** Scan → Get and Scan → Get Many. */
import { FAST_WAIT, jsonOf, pairedOf, rl, run, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();

const get = (extra: Record<string, unknown> = {}) => ({
	resource: 'scan',
	operation: 'get',
	scanId: '1',
	...extra,
});
const getAll = (extra: Record<string, unknown> = {}) => ({
	resource: 'scan',
	operation: 'getAll',
	...extra,
});

async function uploadOne(name = 'invoice.pdf', templateId = 1): Promise<number> {
	const result = await run(
		sb.env(),
		{ resource: 'scan', operation: 'upload', templateId: rl(templateId) },
		[binaryItem(pdfBytes(), name, 'application/pdf')],
	);
	if (result.error) throw result.error;
	sb.get().control.clearRequests();
	return jsonOf(result)[0].id as number;
}

describe('Scan → Get', () => {
	test('outputs the scan with all fields', async () => {
		const [id] = sb.get().control.seedScans({ count: 1, template_id: 3 });
		const result = await run(sb.env(), get({ scanId: String(id) }));
		expect(result.error).toBeUndefined();
		const [scan] = jsonOf(result);
		expect(scan).toEqual(
			expect.objectContaining({
				id,
				status: 'completed',
				template_id: 3,
				confidence: expect.any(Number),
				extracted_data: expect.objectContaining({ line_items: expect.any(Array) }),
				reviewed_data: null,
				error_message: null,
			}),
		);
		expect(
			sb
				.get()
				.control.requests()
				.map((r) => `${r.method} ${r.path}`),
		).toEqual([`GET /scans/${id}`]);
	});

	test('works with the bare envelope and a numeric scan ID', async () => {
		sb.get().control.reset({ envelope: 'bare' });
		const [id] = sb.get().control.seedScans({ count: 1 });
		const result = await run(sb.env(), get({ scanId: id }));
		expect(jsonOf(result)[0]).toEqual(expect.objectContaining({ id, status: 'completed' }));
	});

	test('waits until a processing scan is completed', async () => {
		const id = await uploadOne();
		const result = await run(
			sb.env(),
			get({ scanId: String(id), waitForCompletion: true, options: FAST_WAIT }),
		);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0]).toEqual(expect.objectContaining({ id, status: 'completed' }));
		expect(sb.get().control.requests().length).toBeGreaterThanOrEqual(2);
	});

	test('without waiting outputs the scan as it is', async () => {
		// Held: the scan stays "uploaded" however slow the machine is.
		sb.get().control.hold(true);
		const id = await uploadOne();
		const result = await run(sb.env(), get({ scanId: String(id) }));
		expect(jsonOf(result)[0].status).toBe('uploaded');
	});

	test('waiting on an already failed scan fails the item with its error_message', async () => {
		const [id] = sb.get().control.seedScans({ count: 1, status: 'failed' });
		const result = await run(
			sb.env(),
			get({ scanId: String(id), waitForCompletion: true, options: FAST_WAIT }),
		);
		const stored = sb.get().control.getScan(id)!;
		expect(stored.errorMessage).toBeTruthy();
		expect(result.error?.message).toBe(`Item 0: scan ${id} failed: ${stored.errorMessage}`);
		expect(sb.get().control.requests()).toHaveLength(1);
	});

	test('times out with a held scan', async () => {
		const id = await uploadOne();
		sb.get().control.hold(true);
		const result = await run(
			sb.env(),
			get({
				scanId: String(id),
				waitForCompletion: true,
				options: { pollInterval: 0.05, waitTimeout: 1 },
			}),
			undefined,
			true,
		);
		expect(jsonOf(result)).toEqual([
			{
				error: `Item 0: scan ${id} did not finish within 1 seconds (last status: uploaded)`,
				description: expect.stringMatching(/keeps processing/),
				scan_id: id,
				status: 'uploaded',
			},
		]);
	});

	test('reviewed data wins in the "fields" output', async () => {
		const [id] = sb.get().control.seedScans({ count: 1, template_id: 1 });
		sb.get().control.setReviewedData(id, { invoice_number: 'CORRECTED-1', total_amount: 10 });
		const result = await run(sb.env(), get({ scanId: String(id), options: { output: 'fields' } }));
		expect(jsonOf(result)).toEqual([
			expect.objectContaining({
				scan_id: id,
				invoice_number: 'CORRECTED-1',
				total_amount: 10,
				reviewed: true,
			}),
		]);
	});

	test('404 for an unknown scan, worded for the user', async () => {
		const result = await run(sb.env(), get({ scanId: '999' }));
		expect(result.error?.message).toBe('Not found: Scan 999 not found. (item 0)');
		expect(result.error?.description).toMatch(/Check the ID/);
		expect(result.error?.httpCode).toBe('404');
	});

	test('an invalid scan ID fails locally', async () => {
		const result = await run(sb.env(), get({ scanId: '12a' }));
		expect(result.error?.message).toBe(
			'Item 0: the field "Scan ID" must be a positive whole number, got "12a"',
		);
		expect(sb.get().control.requests()).toEqual([]);
	});

	test('an ID above 2^53 - 1 is refused as one the node cannot read exactly, before any request', async () => {
		for (const scanId of ['9007199254740993', 12345678901234567890]) {
			const result = await run(sb.env(), get({ scanId }));
			expect(result.error?.message).toBe(
				`Item 0: the field "Scan ID" must be at most 9007199254740991, the largest ID the node reads exactly, got "${String(scanId)}"`,
			);
		}
		const exact = await run(sb.env(), get({ scanId: '9007199254740991' }));
		expect(exact.error?.message).toMatch(/^Not found/);
		expect(
			sb
				.get()
				.control.requests()
				.map((r) => r.path),
		).toEqual(['/scans/9007199254740991']);
	});

	test('a GET that hits an internal error is retried and succeeds', async () => {
		const [id] = sb.get().control.seedScans({ count: 1 });
		sb.get().control.addFault({ method: 'GET', path: '^/scans/\\d+$', kind: 'status500' });
		const result = await run(sb.env(), get({ scanId: String(id) }));
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0].id).toBe(id);
		expect(
			sb
				.get()
				.control.requests()
				.map((r) => r.status),
		).toEqual([500, 200]);
	});

	test('500 that persists: the internal error message after the retries', async () => {
		sb.get().control.seedScans({ count: 1 });
		sb.get().control.addFault({
			method: 'GET',
			path: '^/scans/\\d+$',
			kind: 'status500',
			times: 10,
		});
		const result = await run(sb.env(), get());
		expect(result.error?.message).toBe(
			'The Document Scanning service had an internal error (HTTP 500) (item 0)',
		);
		expect(result.error?.description).toMatch(/Try again later/);
		expect(sb.get().control.requests()).toHaveLength(4);
	}, 15000);

	test('one item per input item, paired', async () => {
		const ids = sb.get().control.seedScans({ count: 3 });
		const result = await run(
			sb.env(),
			get({ scanId: '={{ $json.id }}' }),
			ids.reverse().map((id) => ({ json: { id } })),
		);
		expect(jsonOf(result).map((s) => s.id)).toEqual(ids);
		expect(pairedOf(result)).toEqual([0, 1, 2]);
	});
});

describe('Scan → Get Many', () => {
	for (const envelope of ['data', 'bare'] as const) {
		describe(`${envelope} envelope`, () => {
			beforeEach(() => sb.get().control.reset({ envelope }));

			test('Return All reads every page (newest first)', async () => {
				const ids = sb.get().control.seedScans({ count: 60 });
				const result = await run(sb.env(), getAll({ returnAll: true }));
				expect(result.error).toBeUndefined();
				expect(jsonOf(result).map((s) => s.id)).toEqual([...ids].reverse());
				// With meta the page count is known; without it, pages 2-5 are read together (4 and 5 past the end)
				// and the page that ended the listing (3) once more proves that every scan was read.
				const pages = sb
					.get()
					.control.requests()
					.map((r) => r.query.page)
					.sort();
				expect(pages).toEqual(
					envelope === 'data' ? ['1', '2', '3'] : ['1', '2', '3', '3', '4', '5'],
				);
				expect(pairedOf(result).every((p) => p === 0)).toBe(true);
			});

			test('a page-size multiple ends on an empty page, whatever meta says', async () => {
				sb.get().control.seedScans({ count: 50 });
				const result = await run(sb.env(), getAll({ returnAll: true }));
				expect(jsonOf(result)).toHaveLength(50);
				const pages = sb
					.get()
					.control.requests()
					.map((r) => r.query.page)
					.sort();
				// The empty page 3 ends it (a full page never does, whatever meta says); without meta,
				// pages are read ahead and page 3 read once more proves all 50 were read.
				expect(pages).toEqual(
					envelope === 'data' ? ['1', '2', '3'] : ['1', '2', '3', '3', '4', '5'],
				);
			});

			test('Limit stops reading early', async () => {
				const ids = sb.get().control.seedScans({ count: 60 });
				const result = await run(sb.env(), getAll({ returnAll: false, limit: 30 }));
				expect(jsonOf(result).map((s) => s.id)).toEqual([...ids].reverse().slice(0, 30));
				expect(
					sb
						.get()
						.control.requests()
						.map((r) => r.query.page),
				).toEqual(['1', '2']);
			});
		});
	}

	test('the default limit is 50', async () => {
		sb.get().control.seedScans({ count: 60 });
		const result = await run(sb.env(), getAll());
		expect(jsonOf(result)).toHaveLength(50);
	});

	test('filters by status and template', async () => {
		sb.get().control.seedScans({ count: 4, status: 'failed', template_id: 1 });
		const templateTwo = sb
			.get()
			.control.seedScans({ count: 3, status: 'completed', template_id: 2 });
		sb.get().control.seedScans({ count: 2, status: 'validation_failed', template_id: 2 });

		const failed = await run(sb.env(), getAll({ returnAll: true, filters: { status: 'failed' } }));
		expect(jsonOf(failed).map((s) => s.status)).toEqual(['failed', 'failed', 'failed', 'failed']);

		const byTemplate = await run(
			sb.env(),
			getAll({ returnAll: true, filters: { status: 'completed', templateId: rl(2, 'list') } }),
		);
		expect(jsonOf(byTemplate).map((s) => s.id)).toEqual([...templateTwo].reverse());
		expect(sb.get().control.requests().at(-1)?.query).toEqual({
			status: 'completed',
			template_id: '2',
			page: '1',
		});

		const plain = await run(sb.env(), getAll({ returnAll: true, filters: { templateId: '2' } }));
		expect(jsonOf(plain)).toHaveLength(5);
	});

	test('an empty result gives no items', async () => {
		const result = await run(sb.env(), getAll({ returnAll: true, filters: { templateId: rl(4) } }));
		expect(result.error).toBeUndefined();
		expect(result.output).toEqual([]);
	});

	test('output "rows" flattens the tables of every scan', async () => {
		const ids = sb.get().control.seedScans({ count: 2, template_id: 2 });
		const result = await run(sb.env(), getAll({ returnAll: true, options: { output: 'rows' } }));
		const expected = [...ids]
			.reverse()
			.flatMap((id) =>
				(sb.get().control.getScan(id)!.extractedData as { rows: object[] }).rows.map((_, i) => [
					id,
					i + 1,
				]),
			);
		expect(jsonOf(result).map((r) => [r.scan_id, r.row_number])).toEqual(expected);
	});

	test('403 for an account without the Business package', async () => {
		const { NO_BUSINESS_API_KEY } = await import('../../sandbox/server');
		const result = await run(sb.env({ apiKey: NO_BUSINESS_API_KEY }), getAll({ returnAll: true }));
		expect(result.error?.message).toBe('This account has no API access (item 0)');
		expect(result.error?.description).toMatch(/Business/);
		expect(result.error?.httpCode).toBe('403');
	});
});
