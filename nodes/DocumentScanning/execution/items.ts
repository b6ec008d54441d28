import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** Output items of the action node: records paired to their input item, and error items. */

/**
 * An error that knows what its item's `{ error }` output carries besides the message (e.g.
 * `notUploaded` and `retryAfter`, or the `scan_id` a workflow can follow up): typed fields,
 * not flags in the error's context.
 */
export interface ItemFields {
	itemFields(): IDataObject;
}

function hasItemFields(error: unknown): error is ItemFields {
	return typeof (error as Partial<ItemFields> | null)?.itemFields === 'function';
}

/** An error text for a model, which made one call: without "Item 0: " or " (item 0)". */
export function toolText(text: string): string {
	return text.replace(/^Item \d+: /, '').replace(/ \(item \d+\)(?=[.;:]?$|;)/g, '');
}

const isNodeError = (error: unknown): error is NodeApiError | NodeOperationError =>
	error instanceof NodeApiError || error instanceof NodeOperationError;

/**
 * The output item of a failed input item under "Continue On Fail": `{ error, … }`. As an AI
 * tool's answer (`asTool`) its texts are `toolText`s.
 */
export function errorItem(error: unknown, itemIndex: number, asTool = false): INodeExecutionData {
	const text = (value: string) => (asTool ? toolText(value) : value);
	const json: IDataObject = { error: text(error instanceof Error ? error.message : String(error)) };
	if (isNodeError(error) && error.description) json.description = text(error.description);
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	if (hasItemFields(error)) Object.assign(json, error.itemFields());
	return { json, pairedItem: { item: itemIndex } };
}

/** An error as an n8n error: n8n's own errors as they are, anything else wrapped. */
export function asNodeError(ctx: IExecuteFunctions, error: unknown) {
	return isNodeError(error) ? error : new NodeOperationError(ctx.getNode(), error as Error);
}

/** Makes sure an error carries the item it belongs to, as an n8n error. */
export function asItemError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (!isNodeError(error))
		return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
	if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
	return error;
}

/** Wraps plain records as output items paired to one input item. */
export function toItems(records: IDataObject[], itemIndex: number): INodeExecutionData[] {
	return records.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}
