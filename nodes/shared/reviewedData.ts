import type { IDataObject } from 'n8n-workflow';

/**
 * The data of a scan as the shaped outputs of all three nodes show it: the values a person
 * corrected (`reviewed_data`) merged over the extracted ones (`extracted_data`), field by field.
 *
 * - A field in `reviewed_data` wins over the extracted field of the same name, whatever its
 *   value (a table there replaces the extracted table as a whole; `null` is a reviewed value).
 * - Every extracted field nobody reviewed stays, tables (line items) included.
 * - The merge is by top-level field name: a reviewed object value replaces the extracted one.
 *
 * `reviewedFields` names the fields whose value comes from `reviewed_data`, in its order.
 */
export interface MergedScanData {
	data: IDataObject;
	reviewedFields: string[];
}

function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mergeReviewedData(scan: IDataObject): MergedScanData {
	const extracted = isRecord(scan.extracted_data) ? scan.extracted_data : {};
	const reviewed = isRecord(scan.reviewed_data) ? scan.reviewed_data : {};
	const data: IDataObject = { ...extracted };
	const reviewedFields: string[] = [];
	for (const [field, value] of Object.entries(reviewed)) {
		// defineProperty: a field named "__proto__" is data like any other, never a prototype.
		Object.defineProperty(data, field, {
			value,
			enumerable: true,
			writable: true,
			configurable: true,
		});
		reviewedFields.push(field);
	}
	return { data, reviewedFields };
}
