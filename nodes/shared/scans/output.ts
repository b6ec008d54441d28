import type { IDataObject } from 'n8n-workflow';

import { isTable, mergeReviewedData, type MergedScanData } from '../reviewedData';
import { withOriginalName } from './fileName';

/**
 * How a scan is turned into output items, shared by the action node ("Output" option) and
 * the trigger ("Output" option): the raw record, only the extracted fields, or one item per
 * table row (line items for ERP steps).
 */
export type ScanOutputMode = 'raw' | 'fields' | 'rows';

/** Identity of a scan, whether it comes from the API (`id`) or a webhook body (`scan_id`). */
function scanMeta(scan: IDataObject, merged: MergedScanData): IDataObject {
	const meta: IDataObject = { scan_id: scan.id ?? scan.scan_id ?? null };
	for (const key of ['status', 'template_id', 'filename', 'original_filename', 'confidence']) {
		if (scan[key] !== undefined) meta[key] = scan[key];
	}
	meta.reviewed = merged.reviewedFields.length > 0;
	meta.reviewedFields = merged.reviewedFields;
	if (merged.tableConflict !== undefined) meta.tableConflict = merged.tableConflict;
	return meta;
}

/** Scalar (non-table) fields of the data. */
function headerFields(data: IDataObject): IDataObject {
	return Object.fromEntries(Object.entries(data).filter(([, value]) => !isTable(value)));
}

/**
 * Turns one scan into output records, each with `original_filename` (the name the user gave the
 * file: fileName.ts) when the scan has a `filename`.
 * - `raw`: the scan as the API returned it.
 * - `fields`: the extracted fields with the reviewed ones merged over them, with `scan_id`,
 *   `status`, `template_id`, `filename`, `confidence`, `reviewed` and `reviewedFields` (the
 *   names of the fields whose value a reviewer set) beside them; these names win over a field
 *   of the same name, so they can always be relied on.
 * - `rows`: one record per row of every table (`rows` or any list of objects), the row's
 *   columns at the top level, plus `scan_id`, `table`, `row_number` (from 1), the
 *   document's scalar fields under `document`, and `reviewed` / `reviewedFields`. A table in
 *   `reviewed_data` replaces the extracted one; otherwise the extracted rows stay. A scan
 *   without table rows gives one `fields` record, so no scan is dropped.
 */
export function shapeScan(record: IDataObject, mode: ScanOutputMode): IDataObject[] {
	const scan = withOriginalName(record);
	if (mode === 'raw') return [scan];
	const merged = mergeReviewedData(scan);
	const { data, reviewedFields } = merged;
	const meta = scanMeta(scan, merged);
	if (mode === 'fields') return [{ ...data, ...meta }];

	const document = headerFields(data);
	const rows: IDataObject[] = [];
	for (const [table, value] of Object.entries(data)) {
		if (!isTable(value)) continue;
		value.forEach((row, index) => {
			rows.push({
				...row,
				scan_id: meta.scan_id,
				...(meta.original_filename === undefined
					? {}
					: { original_filename: meta.original_filename }),
				table,
				row_number: index + 1,
				document,
				reviewed: meta.reviewed,
				reviewedFields,
				...(merged.tableConflict === undefined ? {} : { tableConflict: merged.tableConflict }),
			});
		});
	}
	return rows.length > 0 ? rows : [{ ...data, ...meta }];
}

/**
 * The items of an event (the webhook trigger's delivery, the poll trigger's scan) with "Split
 * Into Table Rows": one per table row of the scan, each stamped with the event's `event` and
 * `timestamp` (on both sides, so a row's own columns cannot hide them) and `extra` fields.
 */
export function eventRows(
	scan: IDataObject,
	stamp: IDataObject,
	extra: IDataObject = {},
): IDataObject[] {
	const head: IDataObject = { event: stamp.event, timestamp: stamp.timestamp };
	return shapeScan(scan, 'rows').map((row) => ({ ...head, ...row, ...head, ...extra }));
}
