import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ApiContext, ListPage } from './index';
import { apiRequestFull, isLastPage, PAGE_SIZE, unwrapList } from './index';

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

function positive(value: unknown): number | undefined {
	const number = Number(value);
	return Number.isFinite(number) && number > 0 ? Math.floor(number) : undefined;
}

/** The page count `meta` gives (`last_page`, `total_pages`, `pages`, or `total` / `per_page`). */
export function pageCountOf(page: ListPage): number | undefined {
	const meta = page.meta;
	if (!meta) return undefined;
	const last = positive(meta.last_page ?? meta.total_pages ?? meta.pages);
	if (last !== undefined) return last;
	const total = Number(meta.total);
	const perPage = positive(meta.per_page) ?? PAGE_SIZE;
	if (Number.isFinite(total) && total >= 0) return Math.max(1, Math.ceil(total / perPage));
	return undefined;
}

/**
 * Reads a paginated listing (`page` = 1, 2, …) with pages side by side:
 * - when page 1's `meta` gives the page count, the remaining pages are read
 *   `concurrency` at a time;
 * - otherwise pages are read ahead, 4 at first and twice as many each round up to
 *   `lookahead`, until a short or empty page, a page
 *   `meta` / `links` call the last, or a server that ignores `page` (same first record);
 *   pages read past the end are dropped.
 * Each page is requested once. The records come out in page order (newest first for
 * `/scans`), each `id` once: a record that moved to the next page because one was added
 * while reading is not repeated. More than `maxPages` pages fail with a clear error.
 */
export async function readPages(
	this: ApiContext,
	path: string,
	qs: IDataObject,
	options: PagingOptions = {},
): Promise<IDataObject[]> {
	const maxPages = options.maxPages ?? MAX_PAGES;
	const fetchPage = async (pageNumber: number): Promise<ListPage> => {
		const response = await apiRequestFull.call(this, {
			method: 'GET',
			path,
			qs: { ...qs, page: pageNumber },
			itemIndex: options.itemIndex,
		});
		return unwrapList(response.body);
	};

	const first = await fetchPage(1);
	const perPage = positive(first.meta?.per_page) ?? PAGE_SIZE;
	const wantedPages = options.limit === undefined ? undefined : Math.ceil(options.limit / perPage);
	const pages: ListPage[] = [first];
	const ended = (page: ListPage, pageNumber: number, previous?: ListPage) => {
		const firstId = page.items[0]?.id;
		if (previous && firstId !== undefined && firstId === previous.items[0]?.id) return 'ignored-page';
		if (page.items.length === 0 || page.items.length < perPage || isLastPage(page, pageNumber)) return 'last';
		return undefined;
	};

	let done = ended(first, 1) !== undefined || (wantedPages !== undefined && wantedPages <= 1);
	const count = pageCountOf(first);
	if (!done && count !== undefined) {
		const last = wantedPages === undefined ? count : Math.min(count, wantedPages);
		if (last > maxPages) throw (options.tooManyPages?.(maxPages) ?? tooManyPages(this, maxPages, options.itemIndex));
		const rest = await inBatches(last - 1, options.concurrency ?? PAGE_CONCURRENCY, async (i) => await fetchPage(i + 2));
		pages.push(...rest);
		done = true;
	}

	let next = 2;
	let ahead = 4;
	while (!done) {
		if (wantedPages !== undefined && next > wantedPages) break;
		if (next > maxPages) throw (options.tooManyPages?.(maxPages) ?? tooManyPages(this, maxPages, options.itemIndex));
		let width = Math.min(ahead, options.lookahead ?? PAGE_LOOKAHEAD, maxPages - next + 1);
		ahead *= 2;
		if (wantedPages !== undefined) width = Math.min(width, wantedPages - next + 1);
		const batch = await inBatches(width, width, async (i) => await fetchPage(next + i));
		for (const [offset, page] of batch.entries()) {
			const why = ended(page, next + offset, pages[pages.length - 1]);
			if (why !== 'ignored-page') pages.push(page);
			if (why) {
				done = true;
				break;
			}
		}
		next += width;
	}

	const seen = new Set<string>();
	const records: IDataObject[] = [];
	for (const page of pages) {
		for (const record of page.items) {
			const key = record.id === undefined || record.id === null ? undefined : String(record.id);
			if (key !== undefined) {
				if (seen.has(key)) continue;
				seen.add(key);
			}
			records.push(record);
			if (options.limit !== undefined && records.length >= options.limit) return records;
		}
	}
	return records;
}

/** Runs `task(0..count-1)` at most `width` at a time; results in index order. */
async function inBatches<T>(count: number, width: number, task: (index: number) => Promise<T>): Promise<T[]> {
	const results = new Array<T>(count);
	let nextIndex = 0;
	const worker = async () => {
		while (nextIndex < count) {
			const index = nextIndex++;
			results[index] = await task(index);
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(width, count)) }, worker));
	return results;
}

function tooManyPages(ctx: ApiContext, maxPages: number, itemIndex?: number): NodeOperationError {
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
