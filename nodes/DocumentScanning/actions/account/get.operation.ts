import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection } from '../common.descriptions';

const properties: INodeProperties[] = [optionsCollection()];

const displayOptions = { show: { resource: ['account'], operation: ['get'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const balance = await apiRequest.call(this, { method: 'GET', path: '/account', itemIndex });
	return [{ json: balance, pairedItem: { item: itemIndex } }];
}
