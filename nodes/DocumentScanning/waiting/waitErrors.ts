import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/*
 * Waiting itself is done by one poller per execution (ScanPoller.ts): these are the
 * per-item errors it gives.
 */

export function failedScanError(
	ctx: IExecuteFunctions,
	scanId: number,
	scan: IDataObject,
	itemIndex: number,
): NodeOperationError {
	const reason =
		typeof scan.error_message === 'string' && scan.error_message.trim() !== ''
			? scan.error_message.trim()
			: 'the service gave no reason';
	const error = new NodeOperationError(
		ctx.getNode(),
		`Item ${itemIndex}: scan ${scanId} failed: ${reason}`,
		{
			itemIndex,
			description:
				'The service could not process the document, and the scan credit was returned. Check that the file is readable and matches the template, then upload it again.',
		},
	);
	error.context.scanId = scanId;
	error.context.scanStatus = 'failed';
	return error;
}

export function timeoutError(
	ctx: IExecuteFunctions,
	scanId: number,
	scan: IDataObject,
	itemIndex: number,
	timeoutMs: number,
	cancelled: boolean,
): NodeOperationError {
	const status = String(scan.status ?? 'unknown');
	const message = cancelled
		? `Item ${itemIndex}: stopped waiting for scan ${scanId} because the execution was cancelled (last status: ${status})`
		: `Item ${itemIndex}: scan ${scanId} did not finish within ${timeoutMs / 1000} seconds (last status: ${status})`;
	const error = new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		description: `The scan keeps processing on the service; waiting for it was given up, nothing was cancelled. Read it later with Scan → Get (ID ${scanId}), use the Document Scanning Trigger, or raise "Wait Timeout" in the node's options.`,
	});
	error.context.scanId = scanId;
	error.context.scanStatus = status;
	return error;
}
