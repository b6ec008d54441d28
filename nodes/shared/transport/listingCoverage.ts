import type { Read } from './listingPages';
import { idsOf } from './listingPages';

/**
 * What the pages of a listing whose records may also leave (a status filter of `uploaded` or
 * `processing`: scans move on) prove, and what they leave open.
 *
 * The listing is ordered by ID. A page read at time t holds a run of neighbouring records of the
 * listing at t, so every record listed at t with an ID between the page's lowest and highest is
 * on it. A record listed throughout is therefore read if its ID lies within a page's ID range;
 * beyond that page 1 covers every ID above its lowest, and the page that ends the listing
 * (non-empty: short, or its `meta` / `links` say so) every ID below its highest. What no page
 * covers is a gap: records may have left above it while it was read and moved records across a
 * page boundary unseen. Gaps are closed by a listing that only gains records (the same listing
 * without the status filter), read down to the gap and filtered locally (paging.ts).
 *
 * IDs are integers: two pages whose IDs are neighbours (40 and 39) leave no gap.
 */

/**
 * The ID down to which a listing without the filter must be read to close every gap: undefined
 * when the pages leave none; -Infinity when the bottom is open (the listing ended on an empty
 * page, so no page covers its oldest records). `need`: gaps entirely below it do not matter
 * (a limit was reached there); the bottom matters only when the listing was read to its end.
 */
export function uncoveredFloor(
	chain: Read[],
	endPage: Read | undefined,
	need: number,
): number | undefined {
	const first = chain[0];
	const firstIds = idsOf(first);
	if (first.items.length === 0) return undefined;
	if (firstIds.length === 0) return -Infinity;
	// Intervals of covered IDs, [low, high]; page 1 covers upwards, the end page downwards.
	const spans = chain
		.map((page) => idsOf(page))
		.filter((ids) => ids.length > 0)
		.map((ids) => ({ low: Math.min(...ids), high: Math.max(...ids) }));
	spans[0].high = Infinity;
	const endIds = endPage ? idsOf(endPage) : [];
	if (endPage && endIds.length > 0) spans.push({ low: -Infinity, high: Math.max(...endIds) });
	spans.sort((a, b) => b.high - a.high);
	let covered = spans[0].low;
	let floor: number | undefined;
	for (const span of spans.slice(1)) {
		if (covered <= need) break;
		if (covered - span.high > 1) floor = span.high;
		covered = Math.min(covered, span.low);
	}
	if (covered > need && endPage !== undefined && covered > -Infinity) return -Infinity;
	return floor;
}
