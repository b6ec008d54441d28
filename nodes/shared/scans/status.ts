import type { IDataObject } from 'n8n-workflow';

/** States in which a scan does not change any more. */
export const FINAL_STATUSES = new Set(['completed', 'validation_failed', 'failed']);

/** Every field of a scan (spec: "Resources and their fields", Scan). */
const SCAN_FIELDS = [
	'id',
	'status',
	'filename',
	'template_id',
	'confidence',
	'extracted_data',
	'reviewed_data',
	'validation_errors',
	'is_partial',
	'error_message',
	'created_at',
	'updated_at',
];

/**
 * Whether a record carries every field of a scan, so that it is the full scan. The spec says
 * GET /scans returns "a list of scans" without saying whether its records are whole: a record that
 * has every field is taken as the scan, one that lacks any is read again with GET /scans/{id}. A
 * completed scan's `extracted_data` is filled (spec), so a listed one without it is brief too.
 */
export function isFullScan(record: IDataObject): boolean {
	const data = record.extracted_data;
	const filled = record.status !== 'completed' || (typeof data === 'object' && data !== null);
	return filled && SCAN_FIELDS.every((field) => field in record);
}
