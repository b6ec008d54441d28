import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { mapWithConcurrency } from '../../shared/concurrency';
import type { RequestPace } from '../../shared/pace';
import { FINAL_STATUSES, isFullScan } from '../../shared/scans/status';
import type { ListPage } from '../../shared/transport';
import { apiRequest, endsListing, PAGE_SIZE } from '../../shared/transport';
import { fetchListPage } from '../../shared/transport/paging';

/** Most pages one listing round reads beyond those the waiting scans fill. */
const EXTRA_PAGES = 2;
const MAX_PAGES_PER_ROUND = 10;

/** `GET /scans/{id}`: the full scan. */
export async function readScan(
	this: IExecuteFunctions,
	scanId: number | string,
	itemIndex: number,
	deadline: number | undefined,
	pace?: RequestPace,
): Promise<IDataObject> {
	return await apiRequest.call(this, {
		method: 'GET',
		path: `/scans/${scanId}`,
		itemIndex,
		deadline,
		pace,
	});
}

/**
 * A final scan as `GET /scans/{id}` gives it, whatever found it (an upload's answer, a listing):
 * the spec promises every field only there, and a listing may give brief records.
 */
export async function wholeScan(
	this: IExecuteFunctions,
	scan: IDataObject,
	itemIndex: number,
	pace?: RequestPace,
): Promise<IDataObject> {
	if (!FINAL_STATUSES.has(String(scan.status)) || isFullScan(scan)) return scan;
	return await readScan.call(this, String(scan.id), itemIndex, undefined, pace);
}

/**
 * Reads `GET /scans?template_id=…` (newest first) for the status of the wanted scans: the
 * pages the wanted scans fill (⌈wanted / 25⌉) side by side, then one page more at a time
 * while some are still unseen, up to 2 more. Stops early when the listing ends. Returns the
 * listed record of each wanted scan seen (its status only is relied on).
 */
export async function readStatuses(
	this: IExecuteFunctions,
	templateId: number,
	wanted: Set<number>,
	deadline: number | undefined,
	pace?: RequestPace,
): Promise<Map<number, IDataObject>> {
	const seen = new Map<number, IDataObject>();
	const filled = Math.ceil(wanted.size / PAGE_SIZE);
	const maxPages = Math.min(MAX_PAGES_PER_ROUND, filled + EXTRA_PAGES);
	// A page past the end may be answered 404 or 422: the end, not a failed round.
	const readPage = async (pageNumber: number) =>
		await fetchListPage(this, '/scans', { template_id: templateId }, pageNumber, {
			deadline,
			pace,
		});
	const take = (page: ListPage): boolean => {
		for (const scan of page.items) {
			const id = Number(scan.id);
			if (wanted.has(id)) seen.set(id, scan);
		}
		return endsListing(page);
	};

	// Every page read settles before a failure is thrown (no request goes on after the round).
	const count = Math.min(filled, maxPages);
	const first = await mapWithConcurrency(count, count, async (i) => await readPage(i + 1));
	let ended = first.some(take);
	for (
		let pageNumber = first.length + 1;
		!ended && pageNumber <= maxPages && seen.size < wanted.size;
		pageNumber++
	) {
		ended = take(await readPage(pageNumber));
	}
	return seen;
}
