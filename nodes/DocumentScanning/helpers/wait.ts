import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { apiRequest } from '../transport';

export const DEFAULT_POLL_INTERVAL_S = 1;
export const DEFAULT_MAX_POLL_INTERVAL_S = 10;
export const DEFAULT_WAIT_TIMEOUT_S = 300;
const BACKOFF_FACTOR = 1.5;

/** States in which a scan does not change any more. */
export const FINAL_STATUSES = new Set(['completed', 'validation_failed', 'failed']);

export interface WaitSettings {
	firstDelayMs: number;
	maxDelayMs: number;
	timeoutMs: number;
}

function seconds(value: unknown, fallback: number): number {
	const number = Number(value);
	return Number.isFinite(number) && number > 0 ? number : fallback;
}

/** Reads "Wait for Completion" settings from the operation's options collection. */
export function waitSettings(options: IDataObject): WaitSettings {
	const firstDelayMs = seconds(options.pollInterval, DEFAULT_POLL_INTERVAL_S) * 1000;
	const maxDelayMs = Math.max(firstDelayMs, seconds(options.maxPollInterval, DEFAULT_MAX_POLL_INTERVAL_S) * 1000);
	return { firstDelayMs, maxDelayMs, timeoutMs: seconds(options.waitTimeout, DEFAULT_WAIT_TIMEOUT_S) * 1000 };
}

/**
 * Polls `GET /scans/{id}` until the scan is `completed`, `validation_failed` or `failed`,
 * waiting `firstDelayMs` first and 1.5 times longer each time (capped at `maxDelayMs`).
 *
 * - `completed` / `validation_failed`: the scan is returned (a violated validation rule is a
 *   result, not an error);
 * - `failed`: a NodeOperationError carrying the service's `error_message`;
 * - still running at the deadline: a NodeOperationError naming the scan and its last status.
 *
 * `initial` is a scan record already read (e.g. the upload's creation object); it is
 * returned at once when final.
 */
export async function waitForScan(
	this: IExecuteFunctions,
	scanId: number,
	itemIndex: number,
	settings: WaitSettings,
	initial?: IDataObject,
): Promise<IDataObject> {
	const startedAt = Date.now();
	const deadline = startedAt + settings.timeoutMs;
	const signal = this.getExecutionCancelSignal?.();
	let scan = initial ?? (await getScan.call(this, scanId, itemIndex));
	let delay = settings.firstDelayMs;

	while (!FINAL_STATUSES.has(String(scan.status))) {
		const remaining = deadline - Date.now();
		if (remaining <= 0 || signal?.aborted) {
			throw timeoutError(this, scanId, scan, itemIndex, settings.timeoutMs, signal?.aborted === true);
		}
		await sleep(Math.min(delay, remaining));
		delay = Math.min(delay * BACKOFF_FACTOR, settings.maxDelayMs);
		if (signal?.aborted) throw timeoutError(this, scanId, scan, itemIndex, settings.timeoutMs, true);
		scan = await getScan.call(this, scanId, itemIndex);
	}

	if (scan.status === 'failed') throw failedScanError(this, scanId, scan, itemIndex);
	return scan;
}

async function getScan(this: IExecuteFunctions, scanId: number, itemIndex: number): Promise<IDataObject> {
	return await apiRequest.call(this, { method: 'GET', path: `/scans/${scanId}`, itemIndex });
}

export function failedScanError(
	ctx: IExecuteFunctions,
	scanId: number,
	scan: IDataObject,
	itemIndex: number,
): NodeOperationError {
	const reason = typeof scan.error_message === 'string' && scan.error_message.trim() !== ''
		? scan.error_message.trim()
		: 'the service gave no reason';
	const error = new NodeOperationError(ctx.getNode(), `Item ${itemIndex}: scan ${scanId} failed: ${reason}`, {
		itemIndex,
		description:
			'The service could not process the document, and the scan credit was returned. Check that the file is readable and matches the template, then upload it again.',
	});
	error.context.scanId = scanId;
	error.context.scanStatus = 'failed';
	return error;
}

function timeoutError(
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
