import type { IExecuteFunctions } from 'n8n-workflow';
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
	const locator = typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'value' in raw;
	const value = locator ? raw.value : raw;
	const text =
		typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	const digits = /^[1-9][0-9]*$/.test(text);
	if (digits && Number.isSafeInteger(Number(text))) return Number(text);
	const shown =
		value === undefined || value === null || text === '' ? 'nothing' : `"${String(value)}"`;
	// Above 2^53 - 1 a number is not exact in JavaScript, so n8n's JSON parsing of the service's
	// answers could not tell such IDs apart: refused rather than read as a neighbour's.
	const rule = digits
		? `must be at most ${Number.MAX_SAFE_INTEGER}, the largest ID the node reads exactly`
		: 'must be a positive whole number';
	throw new NodeOperationError(
		ctx.getNode(),
		`Item ${itemIndex}: the field "${fieldLabel}" ${rule}, got ${shown}`,
		{
			itemIndex,
			description: `Enter the numeric ID (digits only, e.g. 12). No request was sent for this item.`,
		},
	);
}
