/** Scan → Get Many with Return All: pages read side by side, in both envelope shapes. */
import { jsonOf, run, useSandbox } from './helpers';

const sb = useSandbox();

const getAll = (extra: Record<string, unknown> = {}) => ({
	resource: 'scan',
	operation: 'getAll',
	returnAll: true,
	...extra,
});
const listings = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'GET' && r.path === '/scans');
const pagesRequested = () => listings().map((r) => Number(r.query.page));
/** Page 1 is answered at once, the next 20 listing requests after 300 ms each. */
const slowAfterFirstPage = () => {
	const fault = { method: 'GET', path: '^/scans$', kind: 'latency' } as const;
	sb.get().control.addFault({ ...fault, latencyMs: 0, times: 1 });
	sb.get().control.addFault({ ...fault, latencyMs: 300, times: 20 });
};

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
	const end = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > end) throw new Error('condition not reached');
		await new Promise((resolve) => setImmediate(resolve));
	}
}

for (const envelope of ['data', 'bare'] as const) {
	describe(`${envelope} envelope`, () => {
		beforeEach(() => sb.get().control.reset({ envelope }));

		test('every scan once, newest first, each page requested once (bare: the last page once more)', async () => {
			const ids = sb.get().control.seedScans({ count: 260 });
			const result = await run(sb.env(), getAll());
			expect(result.error).toBeUndefined();
			expect(jsonOf(result).map((s) => s.id)).toEqual([...ids].reverse());
			const pages = pagesRequested();
			// Without meta.total, pages read side by side are proven to join by reading the page
			// that ended the listing once more at the end: every record there was read.
			expect(pages.length - new Set(pages).size).toBe(envelope === 'data' ? 0 : 1);
			if (envelope === 'bare') expect(pages.filter((p) => p === 11)).toHaveLength(2);
			// 11 pages hold the scans; without meta pages 2-3, 4-7, 8-15 are read (4 past the end).
			expect(Math.max(...pages)).toBeLessThanOrEqual(envelope === 'data' ? 11 : 15);
			expect([...new Set(pages.filter((p) => p <= 11))].sort((a, b) => a - b)).toEqual([
				1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
			]);
		});

		test('pages are read side by side', async () => {
			sb.get().control.seedScans({ count: 200 });
			// Every page after the first answers after 300 ms: read one after another they could not overlap.
			slowAfterFirstPage();
			const pending = run(sb.env(), getAll());
			await until(() => listings().length >= 4);
			const inFlight = listings().filter((r) => r.query.page !== '1').length;
			expect(inFlight).toBeGreaterThanOrEqual(3);
			expect((await pending).output).toHaveLength(200);
		});

		test('a scan added while the listing is read shifts the pages but is not output twice', async () => {
			const ids = sb.get().control.seedScans({ count: 60 });
			slowAfterFirstPage();
			const pending = run(sb.env(), getAll());
			// Page 1 was answered; the later pages are computed after the new scan exists.
			await until(() => listings().some((r) => r.query.page === '2'));
			const [added] = sb.get().control.seedScans({ count: 1 });
			const result = await pending;
			expect(result.error).toBeUndefined();
			const out = jsonOf(result).map((s) => s.id);
			expect(new Set(out).size).toBe(out.length);
			expect(out).toEqual([...ids].reverse());
			expect(out).not.toContain(added);
		});

		test('Limit reads only the pages it needs', async () => {
			const ids = sb.get().control.seedScans({ count: 120 });
			const result = await run(sb.env(), getAll({ returnAll: false, limit: 60 }));
			expect(jsonOf(result).map((s) => s.id)).toEqual([...ids].reverse().slice(0, 60));
			expect(pagesRequested().sort((a, b) => a - b)).toEqual(
				envelope === 'data' ? [1, 2, 3] : [1, 2, 3, 3],
			);
		});
	});
}

describe('page cap', () => {
	test('a listing over 400 pages fails once 400 and the page after them were read, naming the cap and what to do', async () => {
		sb.get().control.seedScans({ count: 400 * 25 + 1 });
		const result = await run(sb.env(), getAll());
		expect(result.error?.message).toMatch(/more than 400 pages \(10000 records\)/);
		expect(result.error?.description).toMatch(/Filters/);
		// Page 401 shows whether the 400th, full, page was the last (exactly 10,000 scans are read whole).
		expect(new Set(pagesRequested()).size).toBe(401);
	});

	test('the cap is on pages read: `meta` reporting 20,000 pages over 30 scans costs a round of pages', async () => {
		const ids = sb.get().control.seedScans({ count: 30 });
		sb.get().control.setListing({ metaPages: 20_000 });
		const result = await run(sb.env(), getAll());
		expect(result.error).toBeUndefined();
		expect(jsonOf(result).map((s) => s.id)).toEqual([...ids].reverse());
		// Page 1, then 4 ahead (page 2 is short: the end).
		expect(pagesRequested().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
	});
});
