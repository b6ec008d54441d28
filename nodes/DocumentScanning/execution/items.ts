import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { toolText } from './tool';

/** Output items of the action node: records paired to their input item, and error items. */

/**
 * The output item of a failed input item under "Continue On Fail": `{ error, … }`. As an AI
 * tool's answer (`asTool`) the texts leave out the item references (execution/tool.ts).
 */
export function errorItem(error: unknown, itemIndex: number, asTool = false): INodeExecutionData {
	const text = (value: string) => (asTool ? toolText(value) : value);
	const json: IDataObject = { error: text(error instanceof Error ? error.message : String(error)) };
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.description) json.description = text(error.description);
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
