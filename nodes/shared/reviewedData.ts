import type { IDataObject } from 'n8n-workflow';
import { isPlainObject } from './transport';

/**
 * The data of a scan as the shaped outputs of all three nodes show it: `reviewed_data` merged
 * over `extracted_data` by top-level field name. A reviewed field wins whatever its value (a
 * table replaces the extracted table whole; `null` is a reviewed value); unreviewed fields stay.
 * Table rows may sit under `rows` or the table field's key, and the two sides need not agree: a
 * reviewed table replaces the extracted one under the other key too and takes that key
 * (`crossedTable`); when it could replace more than one, every table is kept and
 * `tableConflict` says why. `reviewedFields`: the fields from `reviewed_data`, in its order.
 */
export interface MergedScanData {
	data: IDataObject;
	reviewedFields: string[];
	/** Set only when a reviewed table could replace more than one extracted table (all kept). */
	tableConflict?: string;
}

/** The key the API may put a template's table under, whatever the table field is called. */
export const ROWS_KEY = 'rows';

/** A list of objects (rows); an empty list is one too (a reviewer may remove every row). */
function isRowList(value: unknown): value is IDataObject[] {
	return Array.isArray(value) && value.every(isPlainObject);
}

/** A table with at least one row: what "One Item per Table Row" splits. */
export function isTable(value: unknown): value is IDataObject[] {
	return isRowList(value) && value.length > 0;
}

const has = (record: IDataObject, key: string) => Object.prototype.hasOwnProperty.call(record, key);

const quoted = (keys: string[]) => keys.map((key) => JSON.stringify(key)).join(' and ');

/**
 * Where a reviewed table under the other key than the extracted one goes: `{ from, to }` (a
 * reviewed key and the extracted key it replaces), nothing when the keys agree or there is no
 * such table, or a `conflict` when more than one table could be meant. Every list counts as a
 * table, an empty one too (the spec holds only single values and tables).
 * - Reviewed rows under `rows`, extracted ones under field keys: they replace the one
 *   extracted table whose field the review does not name.
 * - Extracted rows under `rows`, reviewed ones under field keys: the one reviewed table whose
 *   field holds no extracted table replaces them.
 */
function crossedTable(
	extracted: IDataObject,
	reviewed: IDataObject,
): { from: string; to: string } | { conflict: string } | undefined {
	const fieldKeys = (record: IDataObject) => Object.keys(record).filter((key) => key !== ROWS_KEY);
	let candidates: string[];
	let conflict: string;
	if (isRowList(reviewed[ROWS_KEY]) && !isRowList(extracted[ROWS_KEY])) {
		candidates = fieldKeys(extracted).filter(
			(key) => isRowList(extracted[key]) && !has(reviewed, key),
		);
		if (candidates.length === 1) return { from: ROWS_KEY, to: candidates[0] };
		conflict = `reviewed_data holds a table under "rows" and extracted_data tables under ${quoted(candidates)}: which one the review corrects is not known, so all are kept as they are`;
	} else if (isRowList(extracted[ROWS_KEY]) && !has(reviewed, ROWS_KEY)) {
		candidates = fieldKeys(reviewed).filter(
			(key) => isRowList(reviewed[key]) && !isRowList(extracted[key]),
		);
		if (candidates.length === 1) return { from: candidates[0], to: ROWS_KEY };
		conflict = `extracted_data holds a table under "rows" and reviewed_data tables under ${quoted(candidates)}: which one corrects it is not known, so all are kept as they are`;
	} else {
		return undefined;
	}
	return candidates.length > 1 ? { conflict } : undefined;
}

export function mergeReviewedData(scan: IDataObject): MergedScanData {
	const extracted = isPlainObject(scan.extracted_data) ? scan.extracted_data : {};
	const reviewed = isPlainObject(scan.reviewed_data) ? scan.reviewed_data : {};
	const crossed = crossedTable(extracted, reviewed);
	const moved = crossed !== undefined && 'from' in crossed ? crossed : undefined;
	const data: IDataObject = { ...extracted };
	const reviewedFields: string[] = [];
	for (const [field, value] of Object.entries(reviewed)) {
		const key = moved?.from === field ? moved.to : field;
		// defineProperty: a field named "__proto__" is data like any other, never a prototype.
		Object.defineProperty(data, key, {
			value,
			enumerable: true,
			writable: true,
			configurable: true,
		});
		reviewedFields.push(key);
	}
	if (crossed !== undefined && 'conflict' in crossed)
		return { data, reviewedFields, tableConflict: crossed.conflict };
	return { data, reviewedFields };
}
