/**
 * "Return Existing Scan": which scan holds a file the service already has (409). Only a
 * scan whose stored name carries the file's content fingerprint is proof; the execution's
 * shared listing of the template answers, read again at the top only when it is older
 * than the 409.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isCandidate } from './candidates';
import type { FileRef } from './errors';
import { ambiguousScanError, existingScanNotProvenError } from './errors';
import { fingerprintIn, fingerprintOf } from './fingerprint';
import type { ScanListing, ScanListings } from './scanListing';
import { coverUntil, nameKey, sharedListing } from './scanListing';

export interface ExistingSearch extends FileRef {
	/** The name the node sent (with the fingerprint). */
	sentName: string;
	sha256: string;
	listings: ScanListings;
	/** Local time the 409 arrived: the listing must know every scan created before. */
	conflictAt: number;
	/** Scans held by items of this execution with other bytes: never this file's. */
	heldByOther: (scan: IDataObject) => boolean;
}

function proven(listing: ScanListing, search: ExistingSearch, fingerprint: string): IDataObject[] {
	return (listing.byFingerprint.get(fingerprint) ?? []).filter(
		(scan) =>
			isCandidate(scan, { templateId: search.templateId, claimed: new Set() }) &&
			!search.heldByOther(scan),
	);
}

export async function existingScan(
	this: IExecuteFunctions,
	search: ExistingSearch,
): Promise<IDataObject> {
	const fingerprint = fingerprintOf(search.sha256);
	const request = {
		templateId: search.templateId,
		itemIndex: search.itemIndex,
		fileName: search.fileName,
	};
	const listing = await sharedListing.call(this, search.listings, request);
	let found = proven(listing, search, fingerprint);
	if (found.length === 0) {
		await coverUntil.call(this, listing, search.conflictAt, request);
		found = proven(listing, search, fingerprint);
	}
	const ref: FileRef = {
		itemIndex: search.itemIndex,
		fileName: search.fileName,
		templateId: search.templateId,
	};
	if (found.length === 1) return found[0];
	if (found.length > 1) throw ambiguousScanError(this, ref, found, 'fingerprint');
	const sameName = (listing.byName.get(nameKey(search.fileName)) ?? []).filter(
		(scan) =>
			fingerprintIn(scan.filename) === undefined &&
			isCandidate(scan, { templateId: search.templateId, claimed: new Set() }) &&
			!search.heldByOther(scan),
	);
	throw existingScanNotProvenError(this, ref, fingerprint, sameName);
}
