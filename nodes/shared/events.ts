import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/** The events of the service: the webhook's subscription, the triggers' `events` parameter. */
export const EVENTS = ['scan.completed', 'scan.failed'] as const;

/** The options of every `events` parameter (Webhook → Create and both triggers). */
export const EVENT_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Scan Completed',
		value: 'scan.completed',
		description: 'A scan was processed (status completed or validation_failed)',
	},
	{ name: 'Scan Failed', value: 'scan.failed', description: 'Processing of a scan failed' },
];

/** The triggers' `events` parameter (the name is fixed: saved workflows use it). */
export const triggerEventsProperty: INodeProperties = {
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	required: true,
	options: EVENT_OPTIONS,
	default: [...EVENTS],
	description: 'The events that start the workflow',
};

/**
 * An event list as a parameter or a record holds it: an array, a JSON array as text, or a
 * comma-separated string; trimmed, without blanks or repeats, in order.
 */
export function eventList(raw: unknown): string[] {
	if (typeof raw === 'string' && raw.trim().startsWith('[')) {
		try {
			return eventList(JSON.parse(raw));
		} catch {
			// not JSON: read as a comma-separated string
		}
	}
	const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [];
	return [...new Set(list.map((entry) => String(entry).trim()).filter(Boolean))];
}

/** The selected events, deduplicated and sorted; only known event kinds. */
export function selectedEvents(raw: unknown): string[] {
	return eventList(raw)
		.filter((event) => (EVENTS as readonly string[]).includes(event))
		.sort();
}
