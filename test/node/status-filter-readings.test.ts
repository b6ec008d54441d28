/**
 * Scan → Get Many by status under the readings of issue 33 §6-§7, through n8n-core against the
 * sandbox: what a status-filtered listing costs by account size (requests bounded by the
 * scans that match, never by the account), a finished scan processed again while its status
 * is listed, a server that repeats its last page past the end, and listed records without
 * every field (each finished scan is output as GET /scans/{id} gives it).
 */
import { getManyParams, idsOf, jsonOf, run, useSandbox } from './helpers';

const sb = useSandbox();

const requests = () => sb.get().control.requests();
const seed = (count: number, status: string) =>
	count > 0 ? sb.get().control.seedScans({ count, status: status as never }) : [];

/**
 * Each shape of issue 33 §6 over accounts of `size` older finished scans: the scans it must
 * output. Requests must not grow with `size`.
 */
const SHAPES: Record<string, (size: number) => number[]> = {
	// 26 processing scans above the account's older ones, one finished scan among them (where
	// page 1 ends: the IDs across the page boundary are not neighbours).
	'26 processing, one finished among them': (size) => {
		seed(size, 'completed');
		const oldest = seed(1, 'processing');
		seed(1, 'completed');
		return [...oldest, ...seed(25, 'processing')];
	},
	// One old scan stuck in processing, the account, then 25 recent processing scans.
	'one old stuck scan under the account, 25 recent': (size) => {
		const stuck = seed(1, 'processing');
		seed(size, 'completed');
		return [...stuck, ...seed(25, 'processing')];
	},
	// Exactly 25 matching scans: page 2 is empty.
	'exactly 25 processing': (size) => {
		seed(size, 'completed');
		return seed(25, 'processing');
	},
};

/** The requests each shape costs, whatever the account's size (see the bench: `npm run bench -- listing`). */
const COST: Record<string, Record<'data' | 'bare', number>> = {
	'26 processing, one finished among them': { data: 3, bare: 4 },
	'one old stuck scan under the account, 25 recent': { data: 3, bare: 4 },
	// A full page is never the end, whatever `meta` says: page 2 (empty) and the check of the end.
	'exactly 25 processing': { data: 3, bare: 4 },
};

describe('issue 33 §6: a status filter costs what matches, not the account', () => {
	for (const envelope of ['data', 'bare'] as const)
		for (const [shape, build] of Object.entries(SHAPES))
			test(`${envelope}: ${shape}, over 100, 2,000 and 10,000 older scans: every match once, ${COST[shape][envelope]} requests each time`, async () => {
				for (const size of [100, 2_000, 10_000]) {
					sb.get().control.reset({ envelope });
					const expected = build(size);
					sb.get().control.clearRequests();
					const result = await run(sb.env(), getManyParams('processing'));
					expect(result.error).toBeUndefined();
					expect(idsOf(result).sort((a, b) => a - b)).toEqual(expected);
					expect({ size, requests: requests().length }).toEqual({
						size,
						requests: COST[shape][envelope],
					});
					// None of them reads the listing without the status filter.
					expect(requests().every((r) => r.query.status === 'processing')).toBe(true);
				}
			}, 60_000);
});

describe('issue 33 §7: status filters under every reading', () => {
	for (const envelope of ['data', 'bare'] as const) {
		test(`${envelope}: 30 failed scans, one on page 1 processed again (completed) while page 2 is read: scan 5, failed throughout, comes out, each once`, async () => {
			sb.get().control.reset({ envelope });
			const failed = seed(30, 'failed');
			const reprocessed = failed[20];
			// The second GET /scans to arrive is page 2 (page 1 is read alone first).
			sb.get().control.atRequest(
				1,
				{ method: 'GET', path: '^/scans$' },
				{ reprocess: { ids: [reprocessed], outcome: 'completed' } },
			);
			const result = await run(sb.env(), getManyParams('failed'));
			expect(result.error).toBeUndefined();
			const out = idsOf(result);
			expect(new Set(out).size).toBe(out.length);
			expect(out).toContain(failed[4]);
			expect(out.filter((id) => id !== reprocessed).sort((a, b) => a - b)).toEqual(
				failed.filter((id) => id !== reprocessed),
			);
		});

		test(`${envelope}: a server that repeats its last page past the end, exactly 25 completed scans among others: no "ignores the page parameter" error`, async () => {
			sb.get().control.reset({ envelope });
			sb.get().control.setListing({ pageEnd: 'last' });
			seed(40, 'processing');
			const completed = seed(25, 'completed');
			seed(10, 'processing');
			const result = await run(sb.env(), getManyParams('completed'));
			expect(result.error).toBeUndefined();
			expect(idsOf(result).sort((a, b) => a - b)).toEqual(completed);
		});
	}

	test('a server that ignores page, exactly 25 completed scans among others: still the error naming both readings', async () => {
		sb.get().control.reset({ envelope: 'bare' });
		sb.get().control.setListing({ ignorePage: true });
		seed(40, 'processing');
		seed(25, 'completed');
		const result = await run(sb.env(), getManyParams('completed'));
		expect(result.error?.message).toMatch(/seems to ignore the page parameter/);
		expect(result.error?.description).toMatch(/repeats its last page past the end/);
	});
});

describe('invariant 6: listed records without every field', () => {
	test('each finished scan is read by ID (one request each, at most the Limit); unfinished ones come out as listed', async () => {
		sb.get().control.reset({ listedScans: 'brief' });
		const done = seed(6, 'completed');
		const waiting = seed(3, 'processing');
		sb.get().control.clearRequests();
		const result = await run(
			sb.env(),
			getManyParams('', { returnAll: false, limit: 8, filters: {} }),
		);
		expect(result.error).toBeUndefined();
		const out = jsonOf(result);
		expect(out.map((s) => Number(s.id))).toEqual([...done, ...waiting].reverse().slice(0, 8));
		for (const scan of out.filter((s) => s.status === 'completed'))
			expect(scan.extracted_data).toEqual(sb.get().control.getScan(Number(scan.id))?.extractedData);
		for (const scan of out.filter((s) => s.status === 'processing'))
			expect(scan).not.toHaveProperty('extracted_data');
		const reads = requests().filter((r) => r.path.startsWith('/scans/'));
		expect(reads.map((r) => r.path).sort()).toEqual(
			done
				.slice(-5)
				.map((id) => `/scans/${id}`)
				.sort(),
		);
	});
});
