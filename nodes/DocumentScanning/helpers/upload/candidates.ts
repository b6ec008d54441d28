import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequestFull, isLastPage, PAGE_SIZE, unwrapList } from '../../transport';
import { MAX_PAGES, readPages } from '../../transport/paging';
import { sameFileName } from './fileNames';

/**
 * Allowance (ms) between the local clock and the server's: the `Date` header and
 * `created_at` both have whole seconds, so the estimate of the server's clock can be up to
 * a second early; one more second of margin. A scan created this long before the upload
 * was sent can still be a candidate, never one from 20 s before.
 */
export const CLOCK_ALLOWANCE_MS = 2000;

export interface CandidateSearch {
	templateId: number;
	/** The name the file was uploaded with. */
	fileName: string;
	itemIndex: number;
	/**
	 * Local time (epoch ms) at which the first upload attempt was sent. Only scans the server
	 * created after that moment, on the server's own clock, are candidates. Without it, any age.
	 */
	sentAt?: number;
	/** Scans other items of this execution already hold: never a candidate. */
	claimed: Set<number>;
}

function createdAtMs(scan: IDataObject): number | undefined {
	const value = typeof scan.created_at === 'string' ? Date.parse(scan.created_at) : NaN;
	return Number.isFinite(value) ? value : undefined;
}

/** Server clock minus local clock, from the `Date` header of an answer just received. */
function serverClockOffset(headers: IDataObject | undefined): number {
	const raw = headers?.date ?? headers?.Date;
	const serverNow = typeof raw === 'string' ? Date.parse(raw) : NaN;
	return Number.isFinite(serverNow) ? serverNow - Date.now() : 0;
}

function isCandidate(scan: IDataObject, search: CandidateSearch): boolean {
	if (!sameFileName(scan.filename, search.fileName)) return false;
	// A failed scan does not hold the file: the service accepts the same file again.
	if (scan.status === 'failed') return false;
	if (Number(scan.template_id ?? search.templateId) !== search.templateId) return false;
	return !search.claimed.has(Number(scan.id));
}

/**
 * The scans of the template that may hold this upload's file, newest first: same file
 * name as the service may have stored it, not failed, not claimed by another item, and
 * (with `sentAt`) created after the upload was sent. The caller decides: only a single
 * candidate is ever taken for the file's scan.
 */
export async function findCandidates(this: IExecuteFunctions, search: CandidateSearch): Promise<IDataObject[]> {
	if (search.sentAt === undefined) {
		const all = await readPages.call(this, '/scans', { template_id: search.templateId }, { itemIndex: search.itemIndex });
		return all.filter((scan) => isCandidate(scan, search));
	}
	return await recentCandidates.call(this, search, search.sentAt);
}

/** Newest first, page by page, until the scans are older than the upload. */
async function recentCandidates(
	this: IExecuteFunctions,
	search: CandidateSearch,
	sentAt: number,
): Promise<IDataObject[]> {
	const found: IDataObject[] = [];
	const seen = new Set<unknown>();
	let threshold = -Infinity;
	for (let pageNumber = 1; pageNumber <= MAX_PAGES; pageNumber++) {
		const response = await apiRequestFull.call(this, {
			method: 'GET',
			path: '/scans',
			qs: { template_id: search.templateId, page: pageNumber },
			itemIndex: search.itemIndex,
		});
		if (pageNumber === 1) threshold = sentAt + serverClockOffset(response.headers) - CLOCK_ALLOWANCE_MS;
		const page = unwrapList(response.body);
		let fresh = 0;
		for (const scan of page.items) {
			if (seen.has(scan.id)) continue;
			seen.add(scan.id);
			fresh++;
			const created = createdAtMs(scan);
			// Newest first: from here on every scan is older than the upload.
			if (created !== undefined && created < threshold) return found;
			if (isCandidate(scan, search)) found.push(scan);
		}
		const pageSize = Number(page.meta?.per_page ?? PAGE_SIZE);
		if (fresh === 0 || page.items.length < pageSize || isLastPage(page, pageNumber)) return found;
	}
	return found;
}
