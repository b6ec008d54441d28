import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { toItems } from '../../execution/items';
import { apiRequest } from '../../../shared/transport';
import { optionsCollection } from '../common.descriptions';
import { webhookIdOf, webhookIdProperty } from './shared';

const properties: INodeProperties[] = [webhookIdProperty, optionsCollection()];

const displayOptions = { show: { resource: ['webhook'], operation: ['delete'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const webhookId = webhookIdOf(this, itemIndex);
	// The answer's shape is not specified (it may be empty, e.g. 204): the output is fixed.
	await apiRequest.call(this, { method: 'DELETE', path: `/webhooks/${webhookId}`, itemIndex });
	return toItems([{ deleted: true, id: webhookId }], itemIndex);
}
