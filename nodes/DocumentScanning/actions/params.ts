import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Reads a parameter that must hold a positive whole number (a scan, template or webhook ID)
 * and checks it locally, so that a typo costs no request. Accepts a number, a string of
 * digits (surrounding spaces ignored) or a resource locator value (`{ __rl, mode, value }`).
 */
export function positiveId(
	ctx: IExecuteFunctions,
	raw: unknown,
	itemIndex: number,
	fieldLabel: string,
): number {
	const value = isLocatorValue(raw) ? raw.value : raw;
	const text =
		typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	if (/^[1-9][0-9]*$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
	const shown =
		value === undefined || value === null || text === '' ? 'nothing' : `"${String(value)}"`;
	throw new NodeOperationError(
		ctx.getNode(),
		`Item ${itemIndex}: the field "${fieldLabel}" must be a positive whole number, got ${shown}`,
		{
			itemIndex,
			description: `Enter the numeric ID (digits only, e.g. 12). No request was sent for this item.`,
		},
	);
}

function isLocatorValue(value: unknown): value is { value: unknown } & IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value) && 'value' in value;
}
