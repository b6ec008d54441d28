import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { positiveId } from '../params';

export const webhookIdProperty: INodeProperties = {
	displayName: 'Webhook ID',
	name: 'webhookId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. 7',
	description: 'ID of the webhook, as output by Webhook → Create or Webhook → Get Many',
};

/** The item's Webhook ID, checked locally (a positive whole number) before any request. */
export function webhookIdOf(ctx: IExecuteFunctions, itemIndex: number): number {
	return positiveId(ctx, ctx.getNodeParameter('webhookId', itemIndex, ''), itemIndex, 'Webhook ID');
}
