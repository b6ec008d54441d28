import type { INodeProperties } from 'n8n-workflow';

/**
 * Parameters of the poll trigger. `events` and the option names are the webhook trigger's,
 * so a workflow can switch between the two triggers; "Poll Times" is added by n8n itself
 * for every node with `polling: true`.
 */
export const properties: INodeProperties[] = [
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		options: [
			{
				name: 'Scan Completed',
				value: 'scan.completed',
				description: 'A scan was processed (status completed or validation_failed)',
			},
			{
				name: 'Scan Failed',
				value: 'scan.failed',
				description: 'Processing of a scan failed',
			},
		],
		default: ['scan.completed', 'scan.failed'],
		description: 'The events that start the workflow',
	},
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
		options: [
			{
				displayName: 'Include Validation Failed',
				name: 'includeValidationFailed',
				type: 'boolean',
				default: true,
				description:
					'Whether "Scan Completed" also starts the workflow for scans with status validation_failed (data extracted, but a validation rule was violated)',
			},
			{
				displayName: 'Split Into Table Rows',
				name: 'splitIntoRows',
				type: 'boolean',
				default: false,
				description:
					'Whether to output one item per table row (e.g. invoice line items) instead of one item per scan. A scan without table rows gives one item with its fields.',
			},
			{
				displayName: 'Template Names or IDs',
				name: 'templateIds',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getTemplates' },
				default: [],
				description:
					'Only start the workflow for scans of these templates. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
		],
	},
];
