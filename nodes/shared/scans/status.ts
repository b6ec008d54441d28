import type { IDataObject } from 'n8n-workflow';

/** States in which a scan does not change any more. */
export const FINAL_STATUSES = new Set(['completed', 'validation_failed', 'failed']);

const int = (v: unknown) => Number.isSafeInteger(v);
const text = (v: unknown) => typeof v === 'string';
const record = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const orNull = (is: (v: unknown) => boolean) => (v: unknown) => v === null || is(v);

/** Every field of a scan and its type (spec: "Resources and their fields", Scan). */
const SCAN_FIELDS: Record<string, (value: unknown) => boolean> = {
	id: int,
	status: text,
	filename: text,
	template_id: int,
	confidence: orNull(int),
	extracted_data: orNull(record),
	reviewed_data: orNull(record),
	validation_errors: orNull(Array.isArray),
	is_partial: (v) => typeof v === 'boolean',
	error_message: orNull(text),
	created_at: text,
	updated_at: text,
};

/**
 * Whether a record holds what GET /scans/{id} gives for its status, so that it is the full scan.
 * The spec says GET /scans returns "a list of scans" without saying whether its records are
 * whole: a record with every field, each of its type, is taken as the scan; any other is read
 * again with GET /scans/{id}. Data is filled when completed and available when
 * validation_failed, whose details are in `validation_errors` (spec): a listed one without them
 * is brief too.
 */
export function isFullScan(scan: IDataObject): boolean {
	const done = scan.status === 'completed' || scan.status === 'validation_failed';
	if (done && !(record(scan.extracted_data) && int(scan.confidence))) return false;
	const errors = scan.validation_errors;
	if (scan.status === 'validation_failed' && !(Array.isArray(errors) && errors.length > 0))
		return false;
	if (scan.status === 'failed' && !text(scan.error_message)) return false;
	return Object.entries(SCAN_FIELDS).every(([field, is]) => field in scan && is(scan[field]));
}
