import type { IDataObject } from 'n8n-workflow';

/**
 * How a scan is turned into output items, shared by the action node ("Output" option) and
 * the trigger ("Output" option): the raw record, only the extracted fields, or one item per
 * table row (line items for ERP steps).
 */
export type ScanOutputMode = 'raw' | 'fields' | 'rows';

function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTable(value: unknown): value is IDataObject[] {
	return Array.isArray(value) && value.length > 0 && value.every(isRecord);
}

/** The data of a scan: corrected values (`reviewed_data`) win over `extracted_data`. */
export function scanData(scan: IDataObject): IDataObject {
	if (isRecord(scan.reviewed_data) && Object.keys(scan.reviewed_data).length > 0) return scan.reviewed_data;
	if (isRecord(scan.extracted_data)) return scan.extracted_data;
	return {};
}

/** Identity of a scan, whether it comes from the API (`id`) or a webhook body (`scan_id`). */
function scanMeta(scan: IDataObject): IDataObject {
	const meta: IDataObject = { scan_id: scan.id ?? scan.scan_id ?? null };
	for (const key of ['status', 'template_id', 'filename', 'confidence'] as const) {
		if (scan[key] !== undefined) meta[key] = scan[key];
	}
	meta.reviewed = isRecord(scan.reviewed_data) && Object.keys(scan.reviewed_data).length > 0;
	return meta;
}

/** Scalar (non-table) fields of the data. */
function headerFields(data: IDataObject): IDataObject {
	return Object.fromEntries(Object.entries(data).filter(([, value]) => !isTable(value)));
}

/**
 * Turns one scan into output records.
 * - `raw`: the scan as the API returned it.
 * - `fields`: the extracted (or reviewed) fields, with `scan_id`, `status`, `template_id`,
 *   `filename`, `confidence` and `reviewed` beside them; these names win over a field of the
 *   same name, so they can always be relied on.
 * - `rows`: one record per row of every table (`rows` or any list of objects), the row's
 *   columns at the top level, plus `scan_id`, `table`, `row_number` (from 1) and the
 *   document's scalar fields under `document`. A scan without table rows gives one
 *   `fields` record, so no scan is dropped.
 */
export function shapeScan(scan: IDataObject, mode: ScanOutputMode): IDataObject[] {
	if (mode === 'raw') return [scan];
	const data = scanData(scan);
	const meta = scanMeta(scan);
	if (mode === 'fields') return [{ ...data, ...meta }];

	const document = headerFields(data);
	const rows: IDataObject[] = [];
	for (const [table, value] of Object.entries(data)) {
		if (!isTable(value)) continue;
		value.forEach((row, index) => {
			rows.push({ ...row, scan_id: meta.scan_id, table, row_number: index + 1, document });
		});
	}
	return rows.length > 0 ? rows : [{ ...data, ...meta }];
}
