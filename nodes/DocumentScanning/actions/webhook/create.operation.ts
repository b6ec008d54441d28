import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { toItems } from '../../execution/items';
import { apiRequest } from '../../../shared/transport';
import { optionsCollection, shownFor } from '../common.descriptions';
import { EVENT_OPTIONS, EVENTS, eventList } from '../../../shared/events';

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. ERP import',
		description: 'A name to recognise the webhook by',
	},
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://example.com/hooks/scans',
		description: 'Publicly reachable HTTPS address the service sends the events to',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: EVENT_OPTIONS,
		default: [...EVENTS],
		required: true,
		description: 'Events to send to the URL',
	},
	optionsCollection(),
];

export const description = shownFor('webhook', 'create', properties);

/**
 * Creates a webhook and outputs the created record as the API returns it, including the
 * signing `secret`: the service shows it only in this answer, and the receiver needs it to
 * verify deliveries, so the user must be able to store it.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const name = String(this.getNodeParameter('name', itemIndex, '')).trim();
	const url = String(this.getNodeParameter('url', itemIndex, '')).trim();
	const events = eventList(this.getNodeParameter('events', itemIndex, []));
	const known: string[] = [...EVENTS];
	const missing = !name ? 'Name' : !url ? 'URL' : events.length === 0 ? 'Events' : undefined;
	if (missing) {
		throw new NodeOperationError(
			this.getNode(),
			`Item ${itemIndex}: the field "${missing}" is empty`,
			{
				itemIndex,
				description:
					'Name, URL and at least one event are required to create a webhook. No request was sent.',
			},
		);
	}
	const unknown = events.filter((event) => !known.includes(event));
	if (unknown.length > 0) {
		throw new NodeOperationError(
			this.getNode(),
			`Item ${itemIndex}: the field "Events" holds an unknown event: ${unknown.join(', ')}`,
			{ itemIndex, description: `Use ${known.join(' and/or ')}. No request was sent.` },
		);
	}

	const body: IDataObject = { name, url, events };
	const webhook = await apiRequest.call(this, {
		method: 'POST',
		path: '/webhooks',
		body,
		itemIndex,
	});
	return toItems([webhook], itemIndex);
}
