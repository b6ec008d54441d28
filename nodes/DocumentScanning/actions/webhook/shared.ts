import type { INodeProperties } from 'n8n-workflow';

export const WEBHOOK_EVENTS = [
	{
		name: 'Scan Completed',
		value: 'scan.completed',
		description: 'A scan was processed (status completed or validation failed)',
	},
	{ name: 'Scan Failed', value: 'scan.failed', description: 'Processing of a scan failed' },
];

export const webhookIdProperty: INodeProperties = {
	displayName: 'Webhook ID',
	name: 'webhookId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. 7',
	description: 'ID of the webhook, as output by Webhook → Create or Webhook → Get Many',
};
