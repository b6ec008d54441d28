import type { IDataObject } from 'n8n-workflow';

/**
 * What one page of a position-paged listing says about the listing: its records' IDs, its
 * page size and count, and the one last-page rule (`isEndPage`) that every reader of a
 * listing uses, through listingReader.ts or, for a page read on its own, paging.ts's
 * `endsListing`.
 */

export interface ListingPage {
	items: IDataObject[];
	meta?: IDataObject;
	links?: IDataObject;
	/**
	 * The HTTP status (404 or 422) a page after page 1 was answered with instead of records: a
	 * page past the end, read as an empty page (listingEnds.ts says when that is wrong).
	 */
	missing?: number;
	/** The response's headers (`date`: the server's time when it answered). */
	headers?: IDataObject;
}

/** How late a scan may become visible in a listing (the spec is silent), and clocks may differ. */
export const LATE_MS = 10 * 60_000;

/** Runs `task(0..count-1)` at most `width` at a time; results in index order. */
export type InParallel = <T>(
	count: number,
	width: number,
	task: (index: number) => Promise<T>,
) => Promise<T[]>;

/** One page as the reader got it: its number and logical send / receive times. */
export interface Read extends ListingPage {
	pageNumber: number;
	/** Logical times: a read whose request went out after another came back was served after it. */
	sent: number;
	received: number;
}

export function recordId(record: IDataObject): number | undefined {
	const id = Number(record.id);
	return record.id !== null && record.id !== '' && Number.isSafeInteger(id) ? id : undefined;
}

export function idsOf(read: ListingPage): number[] {
	return read.items.map(recordId).filter((id): id is number => id !== undefined);
}

/** Whether two pages share a record (by ID). */
export function overlaps(a: ListingPage, b: ListingPage): boolean {
	const ids = new Set(idsOf(a));
	return idsOf(b).some((id) => ids.has(id));
}

/** The same records, all with an ID, in the same places. */
export function sameRecords(a: ListingPage, b: ListingPage): boolean {
	const x = idsOf(a);
	const y = idsOf(b);
	return (
		x.length === y.length &&
		x.length === a.items.length &&
		y.length === b.items.length &&
		x.every((id, i) => id === y[i])
	);
}

export function positive(value: unknown): number | undefined {
	const number = Number(value);
	return Number.isFinite(number) && number > 0 ? Math.floor(number) : undefined;
}

/** Records per page: the page's own `meta.per_page` when it is a positive number, else `fallback`. */
export function pageSizeOf(page: ListingPage, fallback: number): number {
	return positive(page.meta?.per_page) ?? fallback;
}

/** The page count `meta` gives (`last_page`, `total_pages`, `pages`, or `total` / `per_page`). */
export function pageCountOf(page: ListingPage, pageSize: number): number | undefined {
	const meta = page.meta;
	if (!meta) return undefined;
	const last = positive(meta.last_page ?? meta.total_pages ?? meta.pages);
	if (last !== undefined) return last;
	const total = Number(meta.total);
	const perPage = positive(meta.per_page) ?? pageSize;
	if (meta.total !== null && meta.total !== '' && Number.isFinite(total) && total >= 0)
		return Math.max(1, Math.ceil(total / perPage));
	return undefined;
}

/**
 * The one rule for "the listing ends with this page": empty or short. A full page is never the
 * end, whatever `meta` or `links` say: a count that is off (cached, or of another filter) would
 * end a listing early in silence; a full last page costs one more read instead.
 */
export function isEndPage(page: ListingPage, pageSize: number): boolean {
	return page.items.length === 0 || page.items.length < pageSize;
}
