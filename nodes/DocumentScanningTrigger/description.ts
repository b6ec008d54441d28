import type { INodeProperties } from 'n8n-workflow';

import { triggerEventsProperty } from '../shared/events';
import {
	includeValidationFailedOption,
	splitIntoRowsOption,
	templateIdsOption,
} from '../shared/triggerOptions';

/**
 * Parameters of the webhook trigger. `events` and the shared option names are the poll
 * trigger's too, so a workflow can switch between the two triggers.
 */
export const properties: INodeProperties[] = [
	triggerEventsProperty,
	{
		displayName:
			'The service needs a public HTTPS address for this trigger. If n8n runs on localhost, set the WEBHOOK_URL environment variable to its public address. Without a public address, use the Document Scanning Poll Trigger instead.',
		name: 'webhookNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Include Full Scan',
				name: 'includeFullScan',
				type: 'boolean',
				default: false,
				description:
					'Whether to fetch the whole scan (with reviewed_data and error_message) and add it under "scan". If the fetch fails, the item carries "fetchError" instead.',
			},
			includeValidationFailedOption,
			{
				displayName: 'Replay Tolerance (Seconds)',
				name: 'replayTolerance',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 3600,
				description:
					"How far (in seconds) the signed timestamp of a delivery may lie from the n8n server's clock, in the past or the future. A delivery outside it starts nothing (it is answered 200 and logged as a warning), so a captured delivery cannot be sent again later. Without this option: 3600 (node version 1: 300). 0 turns the check off. The n8n server's clock must be right.",
			},
			splitIntoRowsOption('delivery'),
			templateIdsOption,
		],
	},
];
