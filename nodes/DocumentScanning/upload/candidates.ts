import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { sameFileName } from './fileNames';
import { readSince } from './scanListing';

export { CLOCK_ALLOWANCE_MS } from './scanListing';

export interface CandidateSearch {
	templateId: number;
	/** The name the file was uploaded with. */
	fileName: string;
	itemIndex: number;
	/**
	 * Local time (epoch ms) at which the first upload attempt was sent. Only scans the server
	 * created after that moment, on the server's own clock, are candidates.
	 */
	sentAt: number;
	/** Scans other items of this execution already hold: never a candidate. */
	claimed: Set<number>;
}

export function isCandidate(
	scan: IDataObject,
	search: Pick<CandidateSearch, 'templateId' | 'claimed'>,
): boolean {
	// A failed scan does not hold the file: the service accepts the same file again.
	if (scan.status === 'failed') return false;
	if (Number(scan.template_id ?? search.templateId) !== search.templateId) return false;
	return !search.claimed.has(Number(scan.id));
}

/**
 * The scans of the template that may hold this upload's file after a lost answer, newest
 * first: same file name as the service may have stored it (with "Return Existing Scan" that
 * name carries the file's fingerprint), not failed, not claimed by another item, and created
 * after the upload was sent. Only the newest pages are read. The caller decides: only a
 * single candidate is ever taken for the file's scan.
 */
export async function findCandidates(
	this: IExecuteFunctions,
	search: CandidateSearch,
): Promise<IDataObject[]> {
	const recent = await readSince.call(this, search, search.sentAt);
	return recent.filter(
		(scan) => sameFileName(scan.filename, search.fileName) && isCandidate(scan, search),
	);
}
