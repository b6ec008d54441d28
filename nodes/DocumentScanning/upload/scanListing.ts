/**
 * One listing of a template's scans per execution, shared by every item whose upload was
 * answered with 409 under "Return Existing Scan". It is read once, lazily (when the first
 * item needs it), with pages side by side, and indexed by content fingerprint and by the name
 * as the service stores it. Scans created after it was read (by other clients of the
 * account) are picked up by re-reading only the newest pages, once for every item that
 * needs them. Nothing is kept beyond the execution (the listing lives in its scope).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequestFull, endsListing, PAGE_SIZE, unwrapList } from '../../shared/transport';
import { readPages } from '../../shared/transport/paging';
import { latin1Repaired, normalizedFileName } from './fileNames';
import { fingerprintIn, withoutFingerprint } from './fingerprint';

/**
 * Guard against a listing that never ends (a server that ignores `page`, a loop): at most
 * this many pages of one template's scans (25 each: 100,000 scans) are read to find a file's
 * scan. Real accounts stay far below it.
 */
export const LISTING_MAX_PAGES = 4000;

/**
 * Allowance (ms) between the local clock and the server's: the `Date` header and
 * `created_at` both have whole seconds, so the estimate of the server's clock can be up to
 * a second early; one more second of margin.
 */
export const CLOCK_ALLOWANCE_MS = 2000;

export interface ScanListing {
	templateId: number;
	/** Local time at which the newest read of page 1 was sent: every scan created before is known. */
	coveredUntil: number;
	byFingerprint: Map<string, IDataObject[]>;
	byName: Map<string, IDataObject[]>;
	ids: Set<string>;
	/** The refresh in flight, and the local time it started. */
	refreshing?: { startedAt: number; done: Promise<void> };
}

/** The listings of one execution, by template; created lazily. */
export type ScanListings = Map<number, Promise<ScanListing>>;

export interface ListingRequest {
	templateId: number;
	itemIndex: number;
	/** Names what the user configured in errors (the upload and its "If Already Uploaded" option). */
	fileName: string;
}

function push(map: Map<string, IDataObject[]>, key: string, scan: IDataObject) {
	const list = map.get(key);
	if (list) list.push(scan);
	else map.set(key, [scan]);
}

/** An empty listing of a template, known complete up to local time `coveredUntil`. */
export function emptyListing(templateId: number, coveredUntil = Date.now()): ScanListing {
	return { templateId, coveredUntil, byFingerprint: new Map(), byName: new Map(), ids: new Set() };
}

/** Adds scans (each ID once) to the listing's indexes: by fingerprint, and by the user's part of the name. */
export function indexScans(listing: ScanListing, scans: IDataObject[]) {
	for (const scan of scans) {
		const key = scan.id === undefined || scan.id === null ? undefined : String(scan.id);
		if (key !== undefined) {
			if (listing.ids.has(key)) continue;
			listing.ids.add(key);
		}
		const fingerprint = fingerprintIn(scan.filename);
		if (fingerprint !== undefined) push(listing.byFingerprint, fingerprint, scan);
		for (const name of nameKeys(scan.filename)) push(listing.byName, name, scan);
	}
	// Newest first within each key, whatever order pages and refreshes came in.
	for (const map of [listing.byFingerprint, listing.byName]) {
		for (const list of map.values()) list.sort((a, b) => Number(b.id) - Number(a.id));
	}
}

/**
 * The keys a stored name is found under: the name, and the name without the node's
 * fingerprint (the user's name), each also from its Latin-1 repair; all normalized.
 */
export function nameKeys(stored: unknown): string[] {
	if (typeof stored !== 'string' || stored === '') return [];
	const forms = [stored];
	const repaired = latin1Repaired(stored);
	if (repaired !== undefined) forms.push(repaired);
	const keys = new Set(
		forms.flatMap((form) => [normalizedFileName(form), withoutFingerprint(form)]),
	);
	return [...keys].filter((key) => key !== '');
}

/** The key the user's file name is looked up under. */
export function nameKey(userName: string): string {
	return normalizedFileName(userName);
}

export function tooManyPagesError(
	ctx: IExecuteFunctions,
	request: ListingRequest,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${request.itemIndex}: template ${request.templateId} has more than ${LISTING_MAX_PAGES} pages of scans (${
			LISTING_MAX_PAGES * PAGE_SIZE
		}); the node stopped looking for the scan of "${request.fileName}"`,
		{
			itemIndex: request.itemIndex,
			description: `The service said this file was already uploaded with template ${request.templateId}, so no credit was used. With "If Already Uploaded" set to "Return Existing Scan" the node reads the template's scans to find the file's scan, and stops after ${LISTING_MAX_PAGES} pages so that a listing that never ends cannot run forever. Set "If Already Uploaded" to "Error" and find the scan with Scan → Get Many, or upload to a template with fewer scans.`,
		},
	);
}

/** Server clock minus local clock, from the `Date` header of an answer just received. */
export function serverClockOffset(headers: IDataObject | undefined): number {
	const raw = headers?.date ?? headers?.Date;
	const serverNow = typeof raw === 'string' ? Date.parse(raw) : NaN;
	return Number.isFinite(serverNow) ? serverNow - Date.now() : 0;
}

function createdAtMs(scan: IDataObject): number | undefined {
	const value = typeof scan.created_at === 'string' ? Date.parse(scan.created_at) : NaN;
	return Number.isFinite(value) ? value : undefined;
}

/**
 * The template's scans created after local time `since` (on the server's clock, with
 * `CLOCK_ALLOWANCE_MS` of margin), newest first: page by page from the top until the scans
 * are older.
 */
export async function readSince(
	this: IExecuteFunctions,
	request: ListingRequest,
	since: number,
): Promise<IDataObject[]> {
	const found: IDataObject[] = [];
	const seen = new Set<unknown>();
	let threshold = -Infinity;
	for (let pageNumber = 1; ; pageNumber++) {
		if (pageNumber > LISTING_MAX_PAGES) throw tooManyPagesError(this, request);
		const response = await apiRequestFull.call(this, {
			method: 'GET',
			path: '/scans',
			qs: { template_id: request.templateId, page: pageNumber },
			itemIndex: request.itemIndex,
		});
		if (pageNumber === 1)
			threshold = since + serverClockOffset(response.headers) - CLOCK_ALLOWANCE_MS;
		const page = unwrapList(response.body);
		let fresh = 0;
		for (const scan of page.items) {
			if (seen.has(scan.id)) continue;
			seen.add(scan.id);
			fresh++;
			const created = createdAtMs(scan);
			// Newest first: from here on every scan is older.
			if (created !== undefined && created < threshold) return found;
			found.push(scan);
		}
		if (fresh === 0 || endsListing(page, pageNumber)) return found;
	}
}

/** The execution's listing of the template, read on first use. */
export async function sharedListing(
	this: IExecuteFunctions,
	listings: ScanListings,
	request: ListingRequest,
): Promise<ScanListing> {
	let pending = listings.get(request.templateId);
	if (!pending) {
		pending = readListing.call(this, request);
		listings.set(request.templateId, pending);
		// A failed read is not kept: the next item tries again (and fails with its own item index).
		pending.catch(() => listings.delete(request.templateId));
	}
	return await pending;
}

async function readListing(this: IExecuteFunctions, request: ListingRequest): Promise<ScanListing> {
	const listing = emptyListing(request.templateId);
	const scans = await readPages.call(
		this,
		'/scans',
		{ template_id: request.templateId },
		{
			itemIndex: request.itemIndex,
			maxPages: LISTING_MAX_PAGES,
			tooManyPages: () => tooManyPagesError(this, request),
		},
	);
	indexScans(listing, scans);
	return listing;
}

/**
 * Makes sure the listing knows every scan created before local time `needed` (the moment a
 * 409 was received): when its newest read of page 1 is older, the newest pages are read
 * again, once for all items waiting for it.
 */
export async function coverUntil(
	this: IExecuteFunctions,
	listing: ScanListing,
	needed: number,
	request: ListingRequest,
): Promise<void> {
	while (listing.coveredUntil < needed) {
		const running = listing.refreshing;
		if (running && running.startedAt >= needed) {
			await running.done;
			return;
		}
		if (running) {
			await running.done.catch(() => undefined);
			continue;
		}
		const startedAt = Date.now();
		const since = listing.coveredUntil;
		const done = (async () => {
			try {
				const scans = await readSince.call(this, request, since);
				indexScans(listing, scans);
				listing.coveredUntil = Math.max(listing.coveredUntil, startedAt);
			} finally {
				listing.refreshing = undefined;
			}
		})();
		listing.refreshing = { startedAt, done };
		await done;
	}
}
