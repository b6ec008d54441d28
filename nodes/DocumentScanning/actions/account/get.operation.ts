import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../transport';

export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const balance = await apiRequest.call(this, { method: 'GET', path: '/account', itemIndex });
	return [{ json: balance, pairedItem: { item: itemIndex } }];
}
