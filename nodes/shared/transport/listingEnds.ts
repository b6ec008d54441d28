import type { ListingPage, Read } from './listingPages';
import { pageCountOf, positive, sameRecords } from './listingPages';

/**
 * How a listing ends when the spec does not say (issue 25 §3). Pure: the re-reads come from
 * `read`, so each reading of a server is tested on its own.
 *
 * - **A page past the end answered 404 or 422** (instead of an empty list): read as an empty
 *   page, so the listing ends before it. That reading is wrong only for a server that refuses
 *   a page that exists (a page cap): for a listing that only gains records, page 1's `meta`
 *   naming at least that many pages proves it, and `contradictedEnd` says what the server did.
 * - **A page past the end answered with the last page again** (the server clamps `page`): a
 *   page whose records were all read is the last page again when `meta.current_page` names the
 *   last page, or, without `meta`, when it is not page 1 again (below), holds exactly the
 *   records of the page before, and that page, read again now, still holds them. In a listing that only gains records a real
 *   page k never holds page k-1's records: they would have moved down a whole page, and records
 *   never move up (page 1 read again, as a first idea had it, would miss joins in the middle).
 *   In a listing whose records also leave, a false end needs a page's worth of records to join
 *   above and then as many to leave between three reads; the read again makes that the bar.
 * - **A server that ignores `page`** (every page is page 1): a page after page 1 holds
 *   exactly what page 1, read again now, holds, or `meta` names page 1 for another page that
 *   it says exists. Nothing beyond page 1 can be read: `ignored`, for the caller to say so (Get
 *   Many fails, the poll trigger fails the poll). A server with exactly one full page that
 *   repeats it past the end looks the same without `meta`: for a filtered listing, `pages`
 *   (the listing without filters paging) tells it apart; otherwise the caller's words name both.
 * - Otherwise the records all read before are a shift (records were added above): `shifted`.
 */

export type RepeatKind = 'clamped' | 'ignored' | 'shifted';

/**
 * What a page after page 1 whose records were all read before means. `before` is the chain's
 * page before it.
 */
export async function classifyRepeat(
	page: Read,
	before: Read,
	read: (pageNumber: number) => Promise<Read>,
	pages?: () => Promise<boolean>,
): Promise<RepeatKind> {
	const current = positive(page.meta?.current_page ?? page.meta?.page);
	if (current !== undefined) {
		if (current === page.pageNumber) return 'shifted';
		const last = positive(page.meta?.last_page ?? page.meta?.total_pages ?? page.meta?.pages);
		// The server answered another page than asked: its last one (clamped), or page 1 again.
		return last !== undefined && current >= last ? 'clamped' : 'ignored';
	}
	// Page 1 again first: a server that ignores `page` also repeats the page before, and when a
	// record joined between page 1 and page 2, page 2 and 3 are equal but differ from page 1's
	// first read.
	if (sameRecords(await read(1), page)) return (await pages?.()) ? 'clamped' : 'ignored';
	if (before.pageNumber > 1 && sameRecords(page, before))
		return sameRecords(await read(before.pageNumber), before) ? 'clamped' : 'shifted';
	return 'shifted';
}

/**
 * A page past the end (empty, or answered 404 / 422) in a listing that only gains records,
 * while page 1 (read before it was sent) said the listing has that page: the server refused a
 * page that exists. Returns the page count page 1 gave, or undefined when nothing contradicts.
 */
export function contradictedEnd(
	page: ListingPage & { pageNumber: number },
	first: ListingPage,
	pageSize: number,
): number | undefined {
	if (page.items.length > 0 || page.pageNumber < 2) return undefined;
	const count = pageCountOf(first, pageSize);
	return count !== undefined && count >= page.pageNumber ? count : undefined;
}
