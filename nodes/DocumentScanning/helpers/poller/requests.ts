import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, apiRequestFull, isLastPage, PAGE_SIZE, unwrapList } from '../../transport';

/** Most pages one listing round reads beyond those the waiting scans fill. */
const EXTRA_PAGES = 2;
const MAX_PAGES_PER_ROUND = 10;

/** `GET /scans/{id}`: the full scan. */
export async function readScan(
	this: IExecuteFunctions,
	scanId: number,
	itemIndex: number,
	deadline: number,
): Promise<IDataObject> {
	return await apiRequest.call(this, { method: 'GET', path: `/scans/${scanId}`, itemIndex, deadline });
}

/**
 * Reads `GET /scans?template_id=…` from page 1 (newest first) until every wanted scan was
 * seen, the listing ends, or a page more than the wanted scans fill was read. Returns the
 * listed record of each wanted scan seen (status only is relied on).
 */
export async function readStatuses(
	this: IExecuteFunctions,
	templateId: number,
	wanted: Set<number>,
	deadline: number,
): Promise<Map<number, IDataObject>> {
	const seen = new Map<number, IDataObject>();
	const maxPages = Math.min(MAX_PAGES_PER_ROUND, Math.ceil(wanted.size / PAGE_SIZE) + EXTRA_PAGES);
	let previousFirstId: unknown;
	for (let pageNumber = 1; pageNumber <= maxPages && seen.size < wanted.size; pageNumber++) {
		const response = await apiRequestFull.call(this, {
			method: 'GET',
			path: '/scans',
			qs: { template_id: templateId, page: pageNumber },
			deadline,
		});
		const page = unwrapList(response.body);
		const firstId = page.items[0]?.id;
		if (pageNumber > 1 && firstId !== undefined && firstId === previousFirstId) break;
		previousFirstId = firstId;
		for (const scan of page.items) {
			const id = Number(scan.id);
			if (wanted.has(id)) seen.set(id, scan);
		}
		const pageSize = Number(page.meta?.per_page ?? PAGE_SIZE);
		if (page.items.length === 0 || page.items.length < pageSize || isLastPage(page, pageNumber)) break;
	}
	return seen;
}
