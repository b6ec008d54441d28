import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { optionsCollection, shownFor } from '../common.descriptions';

export const description = shownFor('account', 'get', [optionsCollection()]);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const balance = await apiRequest.call(this, { method: 'GET', path: '/account', itemIndex });
	return [{ json: balance, pairedItem: { item: itemIndex } }];
}
