/**
 * The body of a `scan.failed` delivery. The API documentation does not show it (it shows only
 * `scan.completed`), so the sandbox plays every shape a service could defend (option
 * `failedBody`):
 *
 * - `scan_id` (default): `data: {scan_id, filename, template_id, status, error_message}`, as
 *   `scan.completed` names the scan;
 * - `id`: the same with the scan's ID as `data.id` (the scan record's own name for it);
 * - `topLevel`: no `data`; the scan's fields at the top level next to `event` and `timestamp`;
 * - `noMessage`: `data` without `error_message`;
 * - `extra`: `data` plus fields nobody asked for (`error_code`, `pages`, `attempts`) and a
 *   top-level `webhook_id`.
 */
import type { ScanRecord } from './records';

export const FAILED_BODIES = ['scan_id', 'id', 'topLevel', 'noMessage', 'extra'] as const;
export type FailedBody = (typeof FAILED_BODIES)[number];

export function failedEventBody(
	shape: FailedBody,
	scan: ScanRecord,
	head: { event: string; timestamp: string },
	webhookId: number,
): Record<string, unknown> {
	const fields = {
		filename: scan.filename,
		template_id: scan.templateId,
		status: 'failed',
		error_message: scan.errorMessage,
	};
	switch (shape) {
		case 'id':
			return { ...head, data: { id: scan.id, ...fields } };
		case 'topLevel':
			return { ...head, scan_id: scan.id, ...fields };
		case 'noMessage': {
			const { error_message: _message, ...rest } = fields;
			return { ...head, data: { scan_id: scan.id, ...rest } };
		}
		case 'extra':
			return {
				...head,
				webhook_id: webhookId,
				data: { scan_id: scan.id, ...fields, error_code: 'unreadable', pages: 1, attempts: 1 },
			};
		default:
			return { ...head, data: { scan_id: scan.id, ...fields } };
	}
}
