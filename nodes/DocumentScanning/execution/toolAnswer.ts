import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ScanOutputMode } from '../../shared/scans/output';
import { shapeScan } from '../../shared/scans/output';
import { mergeReviewedData } from '../../shared/reviewedData';
import { originalFileName } from '../../shared/scans/fileName';
import { runsAsTool } from './tool';

/**
 * A scan as a model needs it: what it is and why it failed, then its fields with reviewed values
 * merged in, each list cut to `rows` entries (`not_shown` counts the rest).
 */
export function compactScan(scan: IDataObject, rows: number): IDataObject {
	const { data, reviewedFields } = mergeReviewedData(scan);
	const head: IDataObject = {
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
	const answer: IDataObject = { ...head };
	const notShown: IDataObject = {};
	const lists = Array.isArray(scan.validation_errors)
		? { validation_errors: scan.validation_errors }
		: {};
	for (const [key, value] of Object.entries({ ...data, ...lists })) {
		if (key in head) continue;
		if (!Array.isArray(value)) answer[key] = value;
		else if (rows > 0 && value.length > 0) answer[key] = value.slice(0, rows);
		if (Array.isArray(value) && value.length > rows) notShown[key] = value.length - rows;
	}
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
	return (scan) => [compactScan(scan, rows)];
}
