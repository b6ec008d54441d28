import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mapWithConcurrency } from '../concurrency';
import type { ListPage } from './envelopes';
import { unwrapList } from './envelopes';
import {
	isEndPage,
	pageCountOf as countOf,
	pageSizeOf,
	readListing,
	saysLastPage,
} from './listingReader';
import { apiRequestFull } from './request';
import type { ApiContext } from './types';

/** Page size of GET /scans (spec: 25 entries per page). */
export const PAGE_SIZE = 25;

/** True when `meta` / `links` say the page just read is the last one (the rule lives in listingReader.ts). */
export function isLastPage(page: ListPage, pageNumber: number): boolean {
	return saysLastPage(page, pageNumber, PAGE_SIZE);
}

/**
 * The one last-page rule for a page read on its own (uploads, the poller, the poll trigger):
 * listingReader.ts's `isEndPage` (empty, short, or `meta` / `links` say so), with the page's
 * own `per_page` when it gives a usable one.
 */
export function endsListing(page: ListPage, pageNumber: number): boolean {
	return isEndPage(page, pageNumber, pageSizeOf(page, PAGE_SIZE));
}

/** Pages read at the same time when `meta` tells how many there are. */
export const PAGE_CONCURRENCY = 8;
/**
 * Pages read ahead at the same time when nothing tells how many there are: 4 at first,
 * twice as many each round, at most this many.
 */
export const PAGE_LOOKAHEAD = 8;
/** Hard cap: at most this many pages (25 each: 10,000 scans) are read for one listing. */
export const MAX_PAGES = 400;

export interface PagingOptions {
	/** Stop once this many records are read; without it, read the whole listing. */
	limit?: number;
	itemIndex?: number;
	maxPages?: number;
	concurrency?: number;
	lookahead?: number;
	/** The error for a listing longer than `maxPages`, in the caller's words; default: Get Many's. */
	tooManyPages?: (maxPages: number) => Error;
}

/** The page count `meta` gives (`last_page`, `total_pages`, `pages`, or `total` / `per_page`). */
export function pageCountOf(page: ListPage): number | undefined {
	return countOf(page, PAGE_SIZE);
}

/**
 * Reads a paginated listing (`page` = 1, 2, …) with pages side by side: when page 1's `meta`
 * gives the page count, the other pages are read `concurrency` at a time; otherwise pages
 * are read ahead, 4 at first and twice as many each round up to `lookahead`. The listing
 * ends on a page that says so when it is read (empty, short, `meta` / `links`), so a record
 * pushed past the planned last page is still read; gaps between pages read side by side while
 * records were added are closed (see listingReader.ts). Each record comes out once, in page
 * order (newest first for `/scans`). More than `maxPages` pages fail with a clear error.
 */
export async function readPages(
	this: ApiContext,
	path: string,
	qs: IDataObject,
	options: PagingOptions = {},
): Promise<IDataObject[]> {
	const maxPages = options.maxPages ?? MAX_PAGES;
	const result = await readListing({
		fetchPage: async (pageNumber) => {
			const response = await apiRequestFull.call(this, {
				method: 'GET',
				path,
				qs: { ...qs, page: pageNumber },
				itemIndex: options.itemIndex,
			});
			return unwrapList(response.body);
		},
		pageSize: PAGE_SIZE,
		limit: options.limit,
		maxPages,
		atMaxPages: 'error',
		concurrency: options.concurrency ?? PAGE_CONCURRENCY,
		lookahead: options.lookahead ?? PAGE_LOOKAHEAD,
		tooManyPages: () => options.tooManyPages?.(maxPages) ?? tooManyPages(this, maxPages, options),
		restless: () => restless(this, path, options.itemIndex),
		inParallel: async (count, width, task) => await mapWithConcurrency(count, width, task),
	});
	return result.records;
}

function tooManyPages(
	ctx: ApiContext,
	maxPages: number,
	options: PagingOptions,
): NodeOperationError {
	const { itemIndex } = options;
	return new NodeOperationError(
		ctx.getNode(),
		`The listing has more than ${maxPages} pages (${maxPages * PAGE_SIZE} records); nothing was output${
			itemIndex === undefined ? '' : ` (item ${itemIndex})`
		}`,
		{
			itemIndex,
			description:
				'Return All stops at this cap so that a listing that never ends cannot run forever. Narrow the listing with Filters (status, template), or switch Return All off and set a Limit.',
		},
	);
}

/** Pages kept answering with records already read, and page 1 said the server does page. */
export function restless(ctx: ApiContext, path: string, itemIndex?: number): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The listing of ${path} kept moving while it was read; nothing was output${itemIndex === undefined ? '' : ` (item ${itemIndex})`}`,
		{
			itemIndex,
			description:
				'Several pages in a row held only records already read: more records were being added than could be paged through. Run the node again when fewer documents are being uploaded.',
		},
	);
}
