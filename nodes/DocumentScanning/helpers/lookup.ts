import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequestFull, isLastPage, PAGE_SIZE, unwrapList } from '../transport';

/** Upper bound on pages read while looking for a scan (25 per page → 10,000 scans). */
const MAX_LOOKUP_PAGES = 400;

export interface ScanLookup {
	templateId: number;
	fileName: string;
	itemIndex: number;
	/**
	 * Only scans created at or after this local time (ms) count; the server's clock is
	 * aligned with the `Date` header of its answer, and `slackMs` allows for both clocks'
	 * granularity. Without it any age counts.
	 */
	createdAfter?: number;
	slackMs?: number;
	/** Scan IDs that must not be returned (already claimed by other items of this run). */
	exclude?: Set<number>;
}

function createdAtMs(scan: IDataObject): number | undefined {
	const value = typeof scan.created_at === 'string' ? Date.parse(scan.created_at) : NaN;
	return Number.isFinite(value) ? value : undefined;
}

function serverClockOffset(headers: IDataObject | undefined): number {
	const raw = headers?.date ?? headers?.Date;
	const serverNow = typeof raw === 'string' ? Date.parse(raw) : NaN;
	return Number.isFinite(serverNow) ? serverNow - Date.now() : 0;
}

/**
 * Finds the newest scan of a template with the given file name that has not failed,
 * through `GET /scans?template_id=…` (newest first, paginated). Used to recover the scan
 * of an upload whose answer was lost, and to return the existing scan on a 409.
 */
export async function findScanByFileName(
	this: IExecuteFunctions,
	lookup: ScanLookup,
): Promise<IDataObject | undefined> {
	let previousFirstId: unknown;
	let threshold: number | undefined;
	for (let pageNumber = 1; pageNumber <= MAX_LOOKUP_PAGES; pageNumber++) {
		const response = await apiRequestFull.call(this, {
			method: 'GET',
			path: '/scans',
			qs: { template_id: lookup.templateId, page: pageNumber },
			itemIndex: lookup.itemIndex,
		});
		if (pageNumber === 1 && lookup.createdAfter !== undefined) {
			threshold = lookup.createdAfter + serverClockOffset(response.headers) - (lookup.slackMs ?? 0);
		}
		const page = unwrapList(response.body);
		const firstId = page.items[0]?.id;
		if (pageNumber > 1 && firstId !== undefined && firstId === previousFirstId) return undefined;
		previousFirstId = firstId;

		for (const scan of page.items) {
			const created = createdAtMs(scan);
			// Newest first: once past the window, nothing older can match.
			if (threshold !== undefined && created !== undefined && created < threshold) return undefined;
			if (String(scan.filename ?? '') !== lookup.fileName) continue;
			if (scan.status === 'failed') continue;
			if (Number(scan.template_id ?? lookup.templateId) !== lookup.templateId) continue;
			if (lookup.exclude?.has(Number(scan.id))) continue;
			return scan;
		}

		const pageSize = Number(page.meta?.per_page ?? PAGE_SIZE);
		if (page.items.length === 0 || page.items.length < pageSize) return undefined;
		if (isLastPage(page, pageNumber)) return undefined;
	}
	return undefined;
}
