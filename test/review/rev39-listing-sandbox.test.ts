/**
 * Review of issue 39 (area 4) through n8n-core against the sandbox: Get Many, Status = completed,
 * Return All, read end page first (listingCoverage.ts `provenFirst`). A scan another client
 * uploaded in parallel becomes visible late (the sandbox's `visibility: late` reading); its
 * `updated_at` is older than the `Date` of the first page's answer, so the reader counts it as
 * listed when the end page was read, in place of a scan that slipped between the pages.
 */
import { getManyParams, idsOf, run, useSandbox } from '../node/helpers';

const sb = useSandbox();

const listings = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'GET' && r.path === '/scans')
		.map((r) => Number(r.query.page ?? 1));

test('fixed: 90 completed scans (4 pages); a scan visible late joins above and others are processed again: the 50th newest, completed throughout, is missing', async () => {
	const control = sb.get().control;
	// 91 completed scans a second apart, the newest a minute old; the newest is not listed yet.
	const ids = control.seedScans({
		count: 91,
		status: 'completed',
		age_ms: 60_000,
		apart_ms: 1000,
	});
	const hidden = Math.max(...ids);
	control.hideScans([hidden]);
	const visible = ids.filter((id) => id !== hidden).sort((a, b) => b - a);
	const x = visible[49]; // last of page 2
	// Reads: p1, p4 (the end: the check), p2, p3, p1 again, then p2–p4 side by side.
	// Before page 2 is read: the hidden scan is listed (x moves to page 3).
	control.duringListing(0, { page: 2, reveal: [hidden] });
	// Before page 3 is read: the 30th newest is processed again (x moves back to page 2).
	control.duringListing(0, { page: 3, status: { ids: [visible[29]], status: 'processing' } });
	// Before page 2 is read again: the 25 scans page 1 held are processed again (x moves to page 1).
	control.duringListing(1, {
		page: 2,
		status: { ids: [hidden, ...visible.slice(0, 24)], status: 'processing' },
	});
	const result = await run(sb.env(), getManyParams('completed'));
	// The schedule above was written for these reads; another order voids it.
	if (listings().join() !== '1,4,2,3,1,2,3,4') return;
	// x was completed throughout the read: it must come out, or Get Many fails saying so.
	if (result.error === undefined) expect(idsOf(result)).toContain(x);
});

/** Exactly once each of `throughout`, at most once each of `changed`, nothing else. */
function expectOnce(out: number[], throughout: number[], changed: number[] = []) {
	expect(new Set(out).size).toBe(out.length);
	expect(out.filter((id) => throughout.includes(id)).sort((a, b) => a - b)).toEqual(
		[...throughout].sort((a, b) => a - b),
	);
	expect(out.filter((id) => !throughout.includes(id) && !changed.includes(id))).toEqual([]);
}

describe.each(['empty', '404', '422', 'last'] as const)(
	'held: 90 completed scans, a page past the end answered %s',
	(pageEnd) => {
		const seed = () => {
			sb.get().control.setListing({ pageEnd });
			const ids = sb.get().control.seedScans({
				count: 90,
				status: 'completed',
				age_ms: 60_000,
				apart_ms: 1000,
			});
			return [...ids].sort((a, b) => b - a);
		};

		test('the 15 oldest leave exactly when the end page is read: the 75 others once each', async () => {
			const ids = seed();
			const leaving = ids.slice(75);
			sb.get().control.duringListing(0, {
				page: 4,
				status: { ids: leaving, status: 'processing' },
			});
			const result = await run(sb.env(), getManyParams('completed'));
			expect(result.error).toBeUndefined();
			expectOnce(idsOf(result), ids.slice(0, 75), leaving);
		});

		test('20 new completed scans join exactly when the end page is read: the 90 once each', async () => {
			const ids = seed();
			sb.get().control.duringListing(0, { page: 4, create: { count: 20, status: 'completed' } });
			const result = await run(sb.env(), getManyParams('completed'));
			expect(result.error).toBeUndefined();
			const out = idsOf(result);
			expectOnce(
				out,
				ids,
				out.filter((id) => !ids.includes(id)),
			);
		});

		test('a scan processed again (leaves, then completes again) while pages 2 and 1 are read: the others once each', async () => {
			const ids = seed();
			const again = ids[30];
			sb.get().control.duringListing(0, {
				page: 2,
				status: { ids: [again], status: 'processing' },
			});
			sb.get().control.duringListing(1, { page: 1, status: { ids: [again], status: 'completed' } });
			const result = await run(sb.env(), getManyParams('completed'));
			expect(result.error).toBeUndefined();
			expectOnce(
				idsOf(result),
				ids.filter((id) => id !== again),
				[again],
			);
		});
	},
);
