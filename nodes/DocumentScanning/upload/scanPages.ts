/**
 * The upload path's reading of GET /scans, each page read after the one before came back. Scans are
 * never deleted nor change template, so a scan only moves down: a page read after the one before
 * it repeats scans but never hides one. Page ends follow the shared rules (`classifyRepeat`).
 */
import type { IDataObject } from 'n8n-workflow';

import { latin1Repaired, normalizedFileName } from './fileNames';
import { withoutFingerprint } from './fingerprint';

/**
 * Guard against a listing that never ends: at most this many pages of one template's scans
 * (25 each: 100,000 scans) are read to find a file's scan. Real accounts stay far below it.
 */
export const LISTING_MAX_PAGES = 4000;

/** Pages in a row holding only scans already read, beyond which the listing is not trusted. */
export const MAX_REPEATS = 3;

/** Whether `seen` lacks the scan's ID (always, without a usable one); adds it. */
export function isNew(seen: Set<string>, scan: IDataObject): boolean {
	if (scan.id === undefined || scan.id === null || scan.id === '') return true;
	if (seen.has(String(scan.id))) return false;
	seen.add(String(scan.id));
	return true;
}

export interface ListingRequest {
	templateId: number;
	itemIndex: number;
	/** Names what the user configured in errors (the upload and its "If Already Uploaded" option). */
	fileName: string;
}

/** Whether a scan can hold a file: of this template, and not failed (the service takes a failed one's file again). */
export function holdsFiles(scan: IDataObject, templateId: number): boolean {
	return scan.status !== 'failed' && Number(scan.template_id ?? templateId) === templateId;
}

/** The keys a stored name is found under: it and its user's part, each also Latin-1 repaired. */
export function nameKeys(stored: unknown): string[] {
	if (typeof stored !== 'string' || stored === '') return [];
	const forms = [stored];
	const repaired = latin1Repaired(stored);
	if (repaired !== undefined) forms.push(repaired);
	const keys = forms.flatMap((form) => [normalizedFileName(form), withoutFingerprint(form)]);
	return [...new Set(keys)].filter((key) => key !== '');
}

/** Allowance between the clocks: `Date` and `created_at` have whole seconds, plus a second. */
export const CLOCK_ALLOWANCE_MS = 2000;

export function push(map: Map<string, IDataObject[]>, key: string, scan: IDataObject) {
	const list = map.get(key);
	if (list) list.push(scan);
	else map.set(key, [scan]);
}

export function createdAtMs(scan: IDataObject): number | undefined {
	const value = typeof scan.created_at === 'string' ? Date.parse(scan.created_at) : NaN;
	return Number.isFinite(value) ? value : undefined;
}
