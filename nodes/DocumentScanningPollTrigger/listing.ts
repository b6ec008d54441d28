import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequestFull, isLastPage, PAGE_SIZE, unwrapList, unwrapRecord } from '../DocumentScanning/transport';
import type { Observation } from './state';
import { scanIdOf } from './state';

/**
 * The requests of one poll. Nothing here changes the state: a request that fails throws,
 * and the caller then commits nothing (the next poll starts from the same state).
 *
 * GET /scans lists newest first by creation, 25 per page; scan IDs grow with creation.
 */

/** Pending scans fetched one by one per poll when they are deeper than the pages read. */
export const MAX_SINGLE_FETCHES = 10;
/** Pages "Fetch Test Event" looks through for a finished scan. */
export const MANUAL_MAX_PAGES = 4;
/** Guard against a server that never ends its listing. */
const MAX_PAGES = 10_000;

export interface ListingPage {
	items: IDataObject[];
	/** True when this is the last page (short, empty, or `meta` / `links` say so). */
	last: boolean;
}

/** Reads page `pageNumber` of GET /scans (no filters: the node filters itself). */
export async function readPage(ctx: IPollFunctions, pageNumber: number): Promise<ListingPage> {
	const response = await apiRequestFull.call(ctx, { method: 'GET', path: '/scans', qs: { page: pageNumber } });
	const page = unwrapList(response.body);
	const items = page.items.filter((item) => typeof item === 'object' && item !== null);
	const pageSize = Number(page.meta?.per_page ?? PAGE_SIZE);
	const last = items.length === 0 || items.length < pageSize || isLastPage(page, pageNumber);
	return { items, last };
}

/**
 * Reads from page 1 down to the first page that reaches `horizon` (or the end of the
 * listing), then fetches pending scans that were not on those pages, at most
 * MAX_SINGLE_FETCHES, in the order of `pending`.
 */
export async function observe(ctx: IPollFunctions, horizon: number, pending: number[]): Promise<Observation> {
	const scans = new Map<number, IDataObject>();
	let topId = 0;
	let previousFirstId: number | undefined;
	for (let pageNumber = 1; pageNumber <= MAX_PAGES; pageNumber++) {
		const page = await readPage(ctx, pageNumber);
		const firstId = page.items.length ? scanIdOf(page.items[0]) : undefined;
		// A server that ignores `page` answers page 1 again: the listing has ended.
		if (pageNumber > 1 && firstId !== undefined && firstId === previousFirstId) break;
		previousFirstId = firstId;

		let reachedHorizon = false;
		for (const scan of page.items) {
			const id = scanIdOf(scan);
			if (id === undefined) continue;
			topId = Math.max(topId, id);
			scans.set(id, scan);
			if (id <= horizon) reachedHorizon = true;
		}
		if (reachedHorizon || page.last) break;
		if (pageNumber === MAX_PAGES) {
			throw new NodeOperationError(ctx.getNode(), `GET /scans did not end after ${MAX_PAGES} pages`);
		}
	}

	const gone = new Set<number>();
	const fetched: number[] = [];
	for (const id of pending) {
		if (scans.has(id)) continue;
		if (fetched.length >= MAX_SINGLE_FETCHES) break;
		fetched.push(id);
		const response = await apiRequestFull.call(ctx, {
			method: 'GET',
			path: `/scans/${id}`,
			passStatuses: [404],
		});
		if (response.statusCode === 404) {
			gone.add(id);
			continue;
		}
		const scan = unwrapRecord(response.body);
		scans.set(id, { ...scan, id: scan.id ?? id });
	}
	return { scans, topId, gone, fetched };
}
