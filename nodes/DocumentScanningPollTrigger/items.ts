import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { withOriginalName } from '../shared/scans/fileName';
import { eventRows } from '../shared/scans/output';
import { filterReason, type TriggerOptions } from '../shared/triggerOptions';

/** The poll trigger's items, shaped as the webhook trigger's: `{ event, timestamp, data }`. */
export type PollOptions = Pick<
	TriggerOptions,
	'templateIds' | 'includeValidationFailed' | 'splitIntoRows'
>;

/** The event a finished scan stands for. */
export function eventOf(scan: IDataObject): 'scan.completed' | 'scan.failed' | undefined {
	if (scan.status === 'completed' || scan.status === 'validation_failed') return 'scan.completed';
	if (scan.status === 'failed') return 'scan.failed';
	return undefined;
}

/** `data` of the item: `scan_id` first, then every field of the record except `id`, and `original_filename`. */
export function eventData(scan: IDataObject): IDataObject {
	const { id, ...rest } = scan;
	return { scan_id: id ?? rest.scan_id ?? null, ...withOriginalName(rest) };
}

/** The event body: `timestamp` is the scan's `updated_at` (when it reached its final state). */
export function eventBody(scan: IDataObject, now: Date): IDataObject {
	const updated = typeof scan.updated_at === 'string' && scan.updated_at !== '';
	return {
		event: eventOf(scan) ?? null,
		timestamp: updated ? scan.updated_at : now.toISOString(),
		data: eventData(scan),
	};
}

/** Whether a finished scan passes the events and options of the node (same rules as the webhook trigger). */
export function accepts(scan: IDataObject, events: string[], options: PollOptions): boolean {
	const event = eventOf(scan);
	return event !== undefined && filterReason(event, eventData(scan), events, options) === undefined;
}

/** Items for the emitted scans: one per scan, or one per table row with "Split Into Table Rows". */
export function toItems(
	scans: IDataObject[],
	options: PollOptions,
	now: Date,
): INodeExecutionData[] {
	return scans
		.flatMap((scan) => {
			const body = eventBody(scan, now);
			return options.splitIntoRows ? eventRows(scan, body) : [body];
		})
		.map((json) => ({ json }));
}
