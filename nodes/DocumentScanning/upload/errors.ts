/**
 * How an upload fails, as typed errors: each knows the fields its item's `{ error }` output
 * carries under Continue On Fail (`ItemFields`), and the upload path tells them apart by class.
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PAGE_SIZE } from '../../shared/transport';
import type { ItemFields } from '../execution/items';
import type { ListingRequest } from './scanPages';
import { LISTING_MAX_PAGES, MAX_REPEATS } from './scanPages';

type Options = { itemIndex?: number; description: string };

/** The base of the upload errors: a NodeOperationError with typed output fields. */
export class UploadError extends NodeOperationError implements ItemFields {
	itemFields(): IDataObject {
		return {};
	}
}

export type NotUploadedReason = 'hourlyLimit' | 'credit' | 'limitsCheck' | 'sameFile';

/** Nothing was sent for the item (or the service refused it): no credit was used. */
export class NotUploadedError extends UploadError {
	constructor(
		node: INode,
		message: string,
		options: Options,
		readonly reason: NotUploadedReason,
		/** ISO time (service clock) from which a retry can succeed; null when waiting does not help. */
		readonly retryAfter: string | null,
		/** The service's status when it refused the upload. */
		readonly httpCode?: number,
	) {
		super(node, message, options);
	}

	override itemFields(): IDataObject {
		return {
			...(this.httpCode === undefined ? {} : { httpCode: String(this.httpCode) }),
			notUploaded: true,
			reason: this.reason,
			retryAfter: this.retryAfter,
		};
	}
}

/** The service already has this file for this template (409), so no credit was used. */
export class AlreadyUploadedError extends UploadError {
	constructor(
		node: INode,
		message: string,
		options: Options,
		/** The scan that holds the file, when the node proved which one (content fingerprint). */
		readonly scanId: number | undefined,
	) {
		super(node, message, options);
	}

	override itemFields(): IDataObject {
		return {
			httpCode: '409',
			alreadyUploaded: true,
			...(this.scanId === undefined ? {} : { scan_id: this.scanId }),
		};
	}
}

/** The upload's answer was lost and the node could not prove whether a scan was made. */
export class OutcomeUnknownError extends UploadError {
	constructor(
		node: INode,
		message: string,
		options: Options,
		/** Scans that may hold the file (same name, made since the upload was sent); undefined when unknown. */
		readonly candidates: number[] | undefined,
		/** A limit (429 / 402) that refused the re-send: the batch's uploads stop as for any limit. */
		readonly limitStatus: number | undefined,
	) {
		super(node, message, options);
	}

	override itemFields(): IDataObject {
		return { outcomeUnknown: true, candidateScanIds: this.candidates ?? null };
	}
}

/** The scan of a file could not be told apart from others (several carry its proof). */
export class AmbiguousScanError extends UploadError {
	constructor(
		node: INode,
		message: string,
		options: Options,
		readonly candidates: number[],
	) {
		super(node, message, options);
	}

	override itemFields(): IDataObject {
		return { candidateScanIds: this.candidates };
	}
}

/** "Return Existing Scan": the service has the file, and no scan provably holds it. */
export class NotProvenError extends UploadError {
	constructor(
		node: INode,
		message: string,
		options: Options,
		/** Scans with the file's name but no content fingerprint: maybe it, not proof. */
		readonly sameName: number[],
	) {
		super(node, message, options);
	}

	override itemFields(): IDataObject {
		return { alreadyUploaded: true, sameNameScanIds: this.sameName };
	}
}

/** A repeat of a file whose first item got no scan: not sent either. */
export function sameFileFailed(node: INode, itemIndex: number, lead: number, error: unknown) {
	const text = error instanceof Error ? error.message : String(error);
	return new NotUploadedError(
		node,
		`Item ${itemIndex}: not uploaded: item ${lead} has the same file, and it got no scan (${text})`,
		{
			itemIndex,
			description:
				'The node sends a file once per batch and gives its scan to every item with that file. Nothing was sent for this item, so no credit was used; what happened to the file is in the error of its first item.',
		},
		error instanceof NotUploadedError ? error.reason : 'sameFile',
		error instanceof NotUploadedError ? error.retryAfter : null,
	);
}

export const idList = (ids: unknown[]) => ids.map(String).join(', ');

export const plural = (count: number, one: string, many = `${one}s`) =>
	`${count} ${count === 1 ? one : many}`;

export function tooManyPagesError(
	ctx: IExecuteFunctions,
	request: ListingRequest,
	maxPages = LISTING_MAX_PAGES,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${request.itemIndex}: template ${request.templateId} has more than ${maxPages} pages of scans (${
			maxPages * PAGE_SIZE
		}); the node stopped looking for the scan of "${request.fileName}"`,
		{
			itemIndex: request.itemIndex,
			description: `The service said this file was already uploaded with template ${request.templateId}, so no credit was used. The node reads the template's scans to find the one that holds the file, and stops after ${maxPages} pages so that a listing that never ends cannot run forever. Find the scan with Scan → Get Many (Filters: template), or upload to a template with fewer scans.`,
		},
	);
}

export function restlessError(ctx: IExecuteFunctions, request: ListingRequest): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${request.itemIndex}: the scans of template ${request.templateId} kept moving while the node looked for the scan of "${request.fileName}"`,
		{
			itemIndex: request.itemIndex,
			description: `${MAX_REPEATS + 1} pages in a row held only scans already read: more scans were being added than could be paged through. Run the workflow again when fewer documents are being uploaded.`,
		},
	);
}

export function pageIgnoredError(ctx: IExecuteFunctions, request: ListingRequest) {
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${request.itemIndex}: the service answered page 2 of template ${request.templateId}'s scans with page 1 again, so the node could not look for the scan of "${request.fileName}" beyond the newest 25`,
		{
			itemIndex: request.itemIndex,
			description: `The service said this file was already uploaded with template ${request.templateId}, so no credit was used. Either the template has exactly 25 scans, or the service ignores the page parameter; the two look the same, so the node does not take the file's scan as missing. Find it with Scan → Get Many (Filters: template).`,
		},
	);
}
