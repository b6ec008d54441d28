import type { INodeProperties } from 'n8n-workflow';

export const webhookIdProperty: INodeProperties = {
	displayName: 'Webhook ID',
	name: 'webhookId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. 7',
	description: 'ID of the webhook, as output by Webhook → Create or Webhook → Get Many',
};
