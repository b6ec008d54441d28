import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../shared/transport';

/**
 * The scan a delivery names: `data.scan_id` of the signed body (the spec's field), else `data.id`
 * (a `scan.failed` body may name it so); without `data`, `scan_id` beside `event`. Only a positive
 * whole number is accepted: a JSON number that JSON.parse reads exactly (up to 2^53 - 1; a larger
 * one is refused, never rounded) or a string of digits (no sign, decimals or leading zero), so
 * only `/scans/<digits>` is requested.
 */

const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

export type ScanIdResult = { id: string } | { problem: string };

export function scanIdFromDelivery(body: IDataObject): ScanIdResult {
	const data = isPlainObject(body.data) ? body.data : { scan_id: body.scan_id };
	const field = data.scan_id === undefined || data.scan_id === null ? 'id' : 'scan_id';
	const value = data[field];
	if (value === undefined || value === null)
		return {
			problem:
				'The delivery names no data.scan_id (nor data.id), so the full scan could not be fetched',
		};
	const exact = typeof value === 'number' && Number.isSafeInteger(value);
	const text = exact ? String(value) : typeof value === 'string' ? value : undefined;
	if (text !== undefined && POSITIVE_INTEGER.test(text)) return { id: text };
	const shown = JSON.stringify(text?.slice(0, 40) ?? value)?.slice(0, 42);
	const why =
		typeof value === 'number' && value > Number.MAX_SAFE_INTEGER
			? 'too large to be read exactly'
			: 'not a positive integer';
	return {
		problem: `data.${field} of the delivery is ${why} (${shown}), so the full scan was not fetched`,
	};
}
