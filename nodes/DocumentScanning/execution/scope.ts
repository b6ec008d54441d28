import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { UploadGate } from '../upload/budget/gate';
import type { ScanPoller } from '../waiting/ScanPoller';
import type { ScanListings } from '../upload/scanListing';

/**
 * State shared by the items of one execution of the node. It lives only as long as that
 * execution (n8n may run executions in other processes, so nothing is kept in modules).
 */
export interface ExecutionScope {
	/** Scans already output by uploads of this execution. */
	claimedScanIds: Set<number>;
	/** Scans uploads of this execution got, by `templateId:sha256` of the file's bytes. */
	uploadedFiles: Map<string, IDataObject>;
	/** One listing of a template's scans per template, read when an item first needs it ("Return Existing Scan"). */
	scanListings: ScanListings;
	/** The one poller every scan waited for in this execution joins. */
	poller: ScanPoller;
	/** Uploads only: closes after a limit was hit; keeps the scans the execution got. */
	uploadGate?: UploadGate;
}

/**
 * What an operation returns when its item still has to wait (for a scan): the request slot
 * is freed at once and the router collects `later` after all requests were sent.
 */
export interface Deferred {
	later: Promise<INodeExecutionData[]>;
}

export function isDeferred(value: INodeExecutionData[] | Deferred): value is Deferred {
	return !Array.isArray(value) && value.later instanceof Promise;
}

/** Default number of items processed at the same time. */
export const DEFAULT_CONCURRENCY = 5;
export const MAX_CONCURRENCY = 20;

/** The output item of a failed input item under "Continue On Fail": `{ error, … }`. */
export function errorItem(error: unknown, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error instanceof Error ? error.message : String(error) };
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.description) json.description = error.description;
	}
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	// An upload the node did not send (a limit): why, and from when a retry can succeed.
	if (
		(error instanceof NodeApiError || error instanceof NodeOperationError) &&
		error.context.notUploaded === true
	) {
		json.notUploaded = true;
		json.reason = error.context.reason as string;
		json.retryAfter = (error.context.retryAfter as string | null) ?? null;
	}
	// A scan that failed or did not finish in time: keep its ID so the workflow can follow it up.
	if (
		(error instanceof NodeApiError || error instanceof NodeOperationError) &&
		error.context.scanId !== undefined
	) {
		json.scan_id = error.context.scanId as number;
		if (error.context.scanStatus !== undefined) json.status = error.context.scanStatus as string;
	}
	return { json, pairedItem: { item: itemIndex } };
}

/** Makes sure an error carries the item it belongs to, as an n8n error. */
export function asItemError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/** Wraps plain records as output items paired to one input item. */
export function toItems(records: IDataObject[], itemIndex: number): INodeExecutionData[] {
	return records.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}
