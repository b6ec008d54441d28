import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mapWithConcurrency } from '../concurrency';
import type { ListPage } from './envelopes';
import { unwrapList } from './envelopes';
import { forItem } from './errorWording';
import { endContradicted, pageIgnored, restless } from './listingErrors';
import type { Read } from './listingPages';
import type { ListingPage, ListingReadOptions } from './listingReader';
import { isEndPage, pageSizeOf, readListing, recordId } from './listingReader';
import { apiRequestFull } from './request';
import { serverTimeOf } from './serverClock';
import type { ApiContext, ApiRequest } from './types';

export { restless } from './listingErrors';

/** Page size of GET /scans (spec: 25 entries per page). */
export const PAGE_SIZE = 25;

/**
 * The one last-page rule for a page read on its own (uploads, the poller, the poll trigger):
 * listingReader.ts's `isEndPage` (empty or short; a full page never ends it), with the page's
 * own `per_page` when it gives a usable one.
 */
export function endsListing(page: ListPage): boolean {
	return isEndPage(page, pageSizeOf(page, PAGE_SIZE));
}

/** Pages of one round read at the same time. */
export const PAGE_CONCURRENCY = 8;
/** Pages read ahead in one round: 4 at first, twice as many each round, at most this many. */
export const PAGE_LOOKAHEAD = 8;
/** Hard cap: at most this many pages (25 each: 10,000 scans) are read for one listing. */
export const MAX_PAGES = 400;

/** HTTP statuses that a page after page 1 may come with instead of an empty page past the end. */
export const PAST_END_STATUSES = [404, 422];

/**
 * Page `pageNumber` of a listing: its records, `meta` and `links`. After page 1, a 404 or 422 is
 * a page past the end (`missing`, no records): listingEnds.ts says when that reading is wrong.
 * Page 1's errors are errors (an unknown template, a bad filter).
 */
export async function fetchListPage(
	ctx: ApiContext,
	path: string,
	qs: IDataObject,
	pageNumber: number,
	request: Pick<ApiRequest, 'itemIndex' | 'deadline' | 'pace'> = {},
): Promise<ListingPage & { headers: IDataObject }> {
	const response = await apiRequestFull.call(ctx, {
		...request,
		method: 'GET',
		path,
		qs: { ...qs, page: pageNumber },
		passStatuses: pageNumber > 1 ? PAST_END_STATUSES : undefined,
	});
	if (response.statusCode < 200 || response.statusCode >= 300)
		return { items: [], missing: response.statusCode, headers: response.headers };
	return { ...unwrapList(response.body), headers: response.headers };
}

export interface ScanPage {
	/** The page as the shared page-end rules take it. */
	read: Read;
	items: IDataObject[];
	/** Nothing comes after this page. */
	last: boolean;
	/** The service's clock when it answered (`Date` header), if it sent one. */
	serverTime?: number;
}

/** Page `pageNumber` of GET /scans read on its own (uploads, the poll trigger), records only. */
export async function readScanPage(
	ctx: ApiContext,
	qs: IDataObject,
	pageNumber: number,
	itemIndex?: number,
): Promise<ScanPage> {
	const page = await fetchListPage(ctx, '/scans', qs, pageNumber, { itemIndex });
	const items = page.items.filter((item) => typeof item === 'object' && item !== null);
	return {
		read: { ...page, items, pageNumber, sent: 0, received: 0 },
		items,
		last: page.missing !== undefined || endsListing({ ...page, items }),
		serverTime: serverTimeOf(page.headers),
	};
}

export interface PagingOptions {
	/** Stop once this many records are read; without it, read the whole listing. */
	limit?: number;
	itemIndex?: number;
	maxPages?: number;
	concurrency?: number;
	lookahead?: number;
	/** The error for a listing longer than `maxPages`, in the caller's words; default: Get Many's. */
	tooManyPages?: (maxPages: number) => Error;
	/** How records may change while the listing is read (listingReader.ts); default 'grows'. */
	changes?: 'grows' | 'any';
}

/**
 * Reads a paginated listing (`page` = 1, 2, …) with pages side by side: 4 pages ahead at
 * first, twice as many each round up to `lookahead`, `concurrency` at a time, never past the
 * page count `meta` gives. The listing ends on a page that says so when it is read (empty,
 * short, or a 404 / 422 past the end; never a full page), so a record pushed past the planned
 * last page is still read; gaps between pages read side by side are closed (listingReader.ts).
 * Each record comes out once, in page order (newest first for `/scans`). More than `maxPages`
 * pages read, a server that ignores `page`, or one that refuses a page it said exists, fail
 * with a clear error: nothing of a listing cut short is output.
 */
export async function readPages(
	this: ApiContext,
	path: string,
	qs: IDataObject,
	options: PagingOptions = {},
): Promise<IDataObject[]> {
	const result = await readListing(readOptions(this, path, qs, options));
	if (result.pageIgnored) throw pageIgnored(this, path, result.records.length, options.itemIndex);
	return result.records;
}

/**
 * Whether the listing without filters shows that the server pages (page 1 ends it, or page 2
 * holds a record older than page 1's: a new one is page 1 again, newer): then a filtered page 2
 * equal to page 1 was its last page served again (a clamping server), not `page` ignored.
 */
async function pagesUnfiltered(ctx: ApiContext, path: string, itemIndex?: number) {
	const first = await fetchListPage(ctx, path, {}, 1, { itemIndex });
	if (endsListing(first)) return true;
	const lowest = Math.min(...first.items.map((r) => recordId(r) ?? Infinity));
	return (await fetchListPage(ctx, path, {}, 2, { itemIndex })).items.some(
		(r) => (recordId(r) ?? Infinity) < lowest,
	);
}

function readOptions(
	ctx: ApiContext,
	path: string,
	qs: IDataObject,
	options: PagingOptions,
): ListingReadOptions {
	const maxPages = options.maxPages ?? MAX_PAGES;
	const { itemIndex } = options;
	return {
		fetchPage: async (pageNumber) => await fetchListPage(ctx, path, qs, pageNumber, { itemIndex }),
		pageSize: PAGE_SIZE,
		maxPages,
		atMaxPages: 'error',
		concurrency: options.concurrency ?? PAGE_CONCURRENCY,
		lookahead: options.lookahead ?? PAGE_LOOKAHEAD,
		tooManyPages: () => options.tooManyPages?.(maxPages) ?? tooManyPages(ctx, maxPages, options),
		restless: () => restless(ctx, path, itemIndex),
		contradicted: (detail) => endContradicted(ctx, path, detail, itemIndex),
		inParallel: async (count, width, task) => await mapWithConcurrency(count, width, task),
		changes: options.changes,
		limit: options.limit,
		pages:
			Object.keys(qs).length > 0
				? async () => await pagesUnfiltered(ctx, path, itemIndex)
				: undefined,
	};
}

function tooManyPages(
	ctx: ApiContext,
	maxPages: number,
	options: PagingOptions,
): NodeOperationError {
	const { itemIndex } = options;
	return new NodeOperationError(
		ctx.getNode(),
		`The listing has more than ${maxPages} pages (${maxPages * PAGE_SIZE} records); nothing was output${forItem(itemIndex)}`,
		{
			itemIndex,
			description:
				'Return All stops at this cap so that a listing that never ends cannot run forever. Narrow the listing with Filters (status, template), or switch Return All off and set a Limit.',
		},
	);
}
