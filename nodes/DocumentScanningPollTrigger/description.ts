import type { INodeProperties } from 'n8n-workflow';

import { triggerEventsProperty } from '../shared/events';
import {
	includeValidationFailedOption,
	splitIntoRowsOption,
	templateIdsOption,
} from '../shared/triggerOptions';

/**
 * Parameters of the poll trigger: `events` and the options as the webhook trigger's, so a
 * workflow can switch triggers; n8n adds "Poll Times" itself (`polling: true`).
 */
export const properties: INodeProperties[] = [
	triggerEventsProperty,
	{
		displayName:
			'This trigger asks the service for finished scans at the Poll Times and needs no public address. Each finished scan starts the workflow once. The first activation starts from that moment: earlier scans are not sent.',
		name: 'pollNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [includeValidationFailedOption, splitIntoRowsOption('scan'), templateIdsOption],
	},
];
