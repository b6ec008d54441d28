import { rawLiteralAt } from './rawJson';

/**
 * The scan a delivery names: `data.scan_id` of the signed body (the spec's field), else `data.id`
 * (a `scan.failed` body may name it so), as the exact digits that were signed. Only a positive
 * integer is accepted (a JSON number or a string of digits, no sign, decimals, exponent or
 * leading zero), so nothing but `/scans/<digits>` can be requested: `..`, `0`, `-1`, `1.5` or
 * `1e3` are refused.
 */

const POSITIVE_INTEGER = /^[1-9][0-9]*$/;
const FIELDS = [
	['data', 'scan_id'],
	['data', 'id'],
];

export type ScanIdResult = { id: string } | { problem: string };

export function scanIdFromDelivery(rawJson: string): ScanIdResult {
	let literal: string | undefined;
	let field = FIELDS[0];
	try {
		for (field of FIELDS) {
			literal = rawLiteralAt(rawJson, field);
			if (literal !== undefined && literal !== 'null') break;
		}
	} catch (error) {
		// The execution still starts (with fetchError): the 200 was sent.
		return {
			problem: `data.scan_id (or data.id) of the delivery could not be read (${(error as Error).message}), so the full scan was not fetched`,
		};
	}
	if (literal === undefined || literal === 'null') {
		return {
			problem:
				'The delivery names no data.scan_id (nor data.id), so the full scan could not be fetched',
		};
	}
	// A string literal is decoded (escapes), a number literal is kept as written.
	const text = literal.startsWith('"') ? (JSON.parse(literal) as string) : literal;
	if (!POSITIVE_INTEGER.test(text)) {
		return {
			problem: `${field.join('.')} of the delivery is not a positive integer (${JSON.stringify(text.slice(0, 40))}), so the full scan was not fetched`,
		};
	}
	return { id: text };
}
