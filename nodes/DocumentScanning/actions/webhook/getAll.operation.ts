import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { toItems } from '../../execution/items';
import { apiRequestList } from '../../../shared/transport';
import { optionsCollection } from '../common.descriptions';

const properties: INodeProperties[] = [optionsCollection()];

const displayOptions = { show: { resource: ['webhook'], operation: ['getAll'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const webhooks = await apiRequestList.call(this, { method: 'GET', path: '/webhooks', itemIndex });
	return toItems(webhooks, itemIndex);
}
