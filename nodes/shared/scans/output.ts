import type { IDataObject } from 'n8n-workflow';

import { isTable, mergeReviewedData, type MergedScanData } from '../reviewedData';
import { withOriginalName } from './fileName';

/** How a scan is turned into output items: the raw record, the fields, or one item per table row. */
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

/**
 * Turns one scan into output records, each with `original_filename` when it has a `filename`.
 * - `raw`: the scan as the API returned it.
 * - `fields`: the merged data (reviewedData.ts) with the scan's identity beside it (`scanMeta`);
 *   those names win over a field of the same name, so they can always be relied on.
 * - `rows`: one record per row of every table, the row's columns at the top level, plus
 *   `scan_id`, `table`, `row_number` (from 1), the scalar fields under `document`, and
 *   `reviewed` / `reviewedFields`. A scan without table rows gives one `fields` record.
 */
export function shapeScan(record: IDataObject, mode: ScanOutputMode): IDataObject[] {
	const scan = withOriginalName(record);
	if (mode === 'raw') return [scan];
	const merged = mergeReviewedData(scan);
	const { data, reviewedFields } = merged;
	const meta = scanMeta(scan, merged);
	if (mode === 'fields') return [{ ...data, ...meta }];

	const document = Object.fromEntries(Object.entries(data).filter(([, value]) => !isTable(value)));
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
 * A trigger event's items with "Split Into Table Rows": one per table row, stamped with `event`
 * and `timestamp` (on both sides, so a row's own columns cannot hide them) and `extra` fields.
 */
export function eventRows(
	scan: IDataObject,
	stamp: IDataObject,
	extra: IDataObject = {},
): IDataObject[] {
	const head: IDataObject = { event: stamp.event, timestamp: stamp.timestamp };
	return shapeScan(scan, 'rows').map((row) => ({ ...head, ...row, ...head, ...extra }));
}
