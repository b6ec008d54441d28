import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ItemFields } from '../execution/items';
import type { WaitSettings } from './pollSettings';

/** A scan that failed or did not finish in time: its item keeps the ID so the workflow can follow it up. */
export class ScanWaitError extends NodeOperationError implements ItemFields {
	constructor(
		ctx: IExecuteFunctions,
		itemIndex: number,
		message: string,
		description: string,
		readonly scanId: number,
		readonly scanStatus: string,
		readonly code?: string | null,
	) {
		super(ctx.getNode(), `Item ${itemIndex}: ${message}`, { itemIndex, description });
	}

	itemFields(): IDataObject {
		return {
			scan_id: this.scanId,
			status: this.scanStatus,
			...(this.code ? { httpCode: this.code } : {}),
		};
	}
}

/** Waiting (or reading) that failed on a read of the scan (a 429, a 5xx, a lost answer): the item names the scan, which was made. */
export function waitFailedError(
	ctx: IExecuteFunctions,
	error: unknown,
	scanId: number,
	itemIndex: number,
	doing = 'waiting for',
): Error {
	if (error instanceof ScanWaitError) return error;
	const message = (error instanceof Error ? error.message : String(error)).replace(
		/^Item \d+: /,
		'',
	);
	return new ScanWaitError(
		ctx,
		itemIndex,
		`${doing} scan ${scanId} failed: ${message}`,
		`The scan was made (its upload used a credit) and goes on at the service; only reading it failed. Read it later with Scan → Get (ID ${scanId}) or use the Document Scanning Trigger; do not upload the file again.`,
		scanId,
		'unknown',
		error instanceof NodeApiError ? error.httpCode : undefined,
	);
}

export function failedScanError(
	ctx: IExecuteFunctions,
	scanId: number,
	scan: IDataObject,
	itemIndex: number,
): ScanWaitError {
	const reason =
		typeof scan.error_message === 'string' && scan.error_message.trim() !== ''
			? scan.error_message.trim()
			: 'the service gave no reason';
	return new ScanWaitError(
		ctx,
		itemIndex,
		`scan ${scanId} failed: ${reason}`,
		'The service could not process the document, and the scan credit was returned. Check that the file is readable and matches the template, then upload it again.',
		scanId,
		'failed',
	);
}

/** The item's error when its Wait Timeout passed or the execution was cancelled (`last`: as last read). */
export function timeoutError(
	ctx: IExecuteFunctions,
	entry: { scanId: number; itemIndex: number; last: IDataObject; settings: WaitSettings },
	cancelled: boolean,
): ScanWaitError {
	const { scanId, itemIndex, settings } = entry;
	const status = String(entry.last.status ?? 'unknown');
	const message = cancelled
		? `stopped waiting for scan ${scanId} because the execution was cancelled (last status: ${status})`
		: `scan ${scanId} did not finish within ${settings.timeoutMs / 1000} seconds (last status: ${status})`;
	return new ScanWaitError(
		ctx,
		itemIndex,
		message,
		`The scan keeps processing on the service; waiting for it was given up, nothing was cancelled. Read it later with Scan → Get (ID ${scanId}), use the Document Scanning Trigger, or raise "Wait Timeout" in the node's options.`,
		scanId,
		status,
	);
}
