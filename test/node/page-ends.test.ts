/**
 * Scan → Get Many against each page end the spec leaves open (issue 25 §3): a page past the end
 * answered 404 or 422, the last page again, and a server that ignores `page`. The right result,
 * or a clear error that says what the server did; never a silent loss.
 */
import { jsonOf, run, useSandbox } from './helpers';

const sb = useSandbox();

const getAll = (extra: Record<string, unknown> = {}) => ({
	resource: 'scan',
	operation: 'getAll',
	returnAll: true,
	...extra,
});
const pages = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'GET' && r.path === '/scans')
		.map((r) => Number(r.query.page));

describe('bare arrays (no meta: pages past the end are read ahead)', () => {
	beforeEach(() => sb.get().control.reset({ envelope: 'bare' }));

	for (const pageEnd of ['404', '422'] as const) {
		test(`a page past the end answered ${pageEnd}: 40 scans come out, no error`, async () => {
			const ids = sb.get().control.seedScans({ count: 40 });
			sb.get().control.setListing({ pageEnd });
			const result = await run(sb.env(), getAll());
			expect(result.error).toBeUndefined();
			expect(jsonOf(result).map((s) => s.id)).toEqual([...ids].reverse());
			// Pages 3-5 were read ahead and answered with the error.
			expect(
				sb
					.get()
					.control.requests()
					.some((r) => r.status === Number(pageEnd)),
			).toBe(true);
		});

		test(`exactly two full pages, page 3 answered ${pageEnd}: 50 scans, the end proven`, async () => {
			const ids = sb.get().control.seedScans({ count: 50 });
			sb.get().control.setListing({ pageEnd });
			const result = await run(sb.env(), getAll());
			expect(result.error).toBeUndefined();
			expect(jsonOf(result).map((s) => s.id)).toEqual([...ids].reverse());
		});
	}

	test('a page past the end answered with the last page again: 50 scans, no error', async () => {
		const ids = sb.get().control.seedScans({ count: 50 });
		sb.get().control.setListing({ pageEnd: 'last' });
		const result = await run(sb.env(), getAll());
		expect(result.error).toBeUndefined();
		expect(jsonOf(result).map((s) => s.id)).toEqual([...ids].reverse());
		// Page 2 read once more proved that page 3 repeated it.
		expect(pages().filter((p) => p === 2).length).toBeGreaterThanOrEqual(2);
	});

	test('a server that ignores page: Return All over 30 scans fails, saying what the server did', async () => {
		sb.get().control.seedScans({ count: 30 });
		sb.get().control.setListing({ ignorePage: true });
		const result = await run(sb.env(), getAll());
		expect(result.output).toEqual([]);
		expect(result.error?.message).toBe(
			'The service answered page 2 of /scans with the same 25 records as page 1: it seems to ignore the page parameter; nothing was output (item 0)',
		);
		expect(result.error?.description).toMatch(/set Limit to 25 or less/);
	});

	test('a server that ignores page, with Continue On Fail: one error item for the one input item', async () => {
		sb.get().control.seedScans({ count: 30 });
		sb.get().control.setListing({ ignorePage: true });
		const result = await run(sb.env(), getAll(), undefined, true);
		expect(result.output).toHaveLength(1);
		expect(String(result.output[0].json.error)).toMatch(/ignore the page parameter/);
	});

	test('a server that ignores page with Limit 25: page 1 is all it needs', async () => {
		const ids = sb.get().control.seedScans({ count: 30 });
		sb.get().control.setListing({ ignorePage: true });
		const result = await run(sb.env(), getAll({ returnAll: false, limit: 25 }));
		expect(result.error).toBeUndefined();
		expect(jsonOf(result).map((s) => s.id)).toEqual([...ids].reverse().slice(0, 25));
	});
});

describe('data envelope', () => {
	beforeEach(() => sb.get().control.reset({ envelope: 'data' }));

	test('a server that ignores page (meta names page 1 for page 2) fails the same way', async () => {
		sb.get().control.seedScans({ count: 30 });
		sb.get().control.setListing({ ignorePage: true });
		const result = await run(sb.env(), getAll());
		expect(result.error?.message).toMatch(/seems to ignore the page parameter/);
	});

	test('a page that exists refused with 422 (a page cap): a clear error, nothing output', async () => {
		sb.get().control.seedScans({ count: 100 });
		sb.get().control.addFault({
			method: 'GET',
			path: '^/scans$',
			kind: 'status',
			status: 422,
			after: 2,
			times: 10,
		});
		const result = await run(sb.env(), getAll());
		expect(result.output).toEqual([]);
		expect(result.error?.message).toMatch(
			/^The service answered page [234] of \/scans with HTTP 422 although page 1 said the listing has 4 pages; nothing was output \(item 0\)$/,
		);
	});

	test('page 1 answered 404 is an error as before (an unknown template, a wrong URL)', async () => {
		sb.get().control.addFault({ method: 'GET', path: '^/scans$', kind: 'status', status: 404 });
		const result = await run(sb.env(), getAll());
		expect(result.error?.message).toMatch(/404|not found/i);
	});
});
