import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ScanOutputMode } from '../../shared/scans/output';
import { shapeScan } from '../../shared/scans/output';
import { mergeReviewedData } from '../../shared/reviewedData';
import { originalFileName } from '../../shared/scans/fileName';
import { runsAsTool, shorten, withoutSecrets } from './tool';

/** The answer's own fields: an extracted field of one of these names goes under `extracted_fields`. */
const OWN = ['validation_errors', 'not_shown', 'extracted_fields', 'error_message', 'is_partial'];

/**
 * A scan as a model needs it: what it is and why it failed, then its fields with reviewed values
 * merged in, each list at any depth cut to `rows` entries (`not_shown` counts the rest by path).
 */
export function compactScan(scan: IDataObject, rows: number): IDataObject {
	const { data, reviewedFields } = mergeReviewedData(scan);
	const answer: IDataObject = {
		scan_id: scan.id ?? scan.scan_id ?? null,
		status: scan.status ?? null,
		original_filename: typeof scan.filename === 'string' ? originalFileName(scan.filename) : null,
		template_id: scan.template_id ?? null,
		created_at: scan.created_at ?? null,
		confidence: scan.confidence ?? null,
		...(scan.error_message ? { error_message: scan.error_message } : {}),
		...(scan.is_partial === true ? { is_partial: true } : {}),
		...(reviewedFields.length > 0 ? { reviewed_fields: reviewedFields } : {}),
	};
	const own = new Set([...Object.keys(answer), ...OWN]);
	const notShown: IDataObject = {};
	const moved: IDataObject = {};
	const lists = Array.isArray(scan.validation_errors) ? scan.validation_errors : [];
	for (const [key, value] of [...Object.entries(data), ['validation_errors', lists] as const]) {
		const extracted = key !== 'validation_errors' || value !== lists;
		const path = extracted && own.has(key) ? `extracted_fields.${key}` : key;
		const shown = shorten(value, Infinity, rows, path, notShown);
		if (Array.isArray(shown) && shown.length === 0) continue;
		(path === key ? answer : moved)[key] = shown as IDataObject;
	}
	if (Object.keys(moved).length > 0) answer.extracted_fields = moved;
	return Object.keys(notShown).length > 0 ? { ...answer, not_shown: notShown } : answer;
}

/** An item's scans as "Output" says; without it compact for a model (a tool), else raw. */
export function scanShape(
	ctx: IExecuteFunctions,
	options: IDataObject,
	itemIndex: number,
): (scan: IDataObject) => IDataObject[] {
	const mode = options.output as ScanOutputMode | undefined;
	if (mode !== undefined || !runsAsTool(ctx.getNode()))
		return (scan) => shapeScan(scan, mode ?? 'raw');
	const rows = ctx.getNodeParameter('operation', itemIndex) === 'get' ? 10 : 0; // entries of each list
	return (scan) => [compactScan(withoutSecrets(scan), rows)];
}
