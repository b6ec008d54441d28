import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { toItems } from '../../execution/items';
import { apiRequestList } from '../../../shared/transport';
import { optionsCollection, shownFor } from '../common.descriptions';

export const description = shownFor('webhook', 'getAll', [optionsCollection()]);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const webhooks = await apiRequestList.call(this, { method: 'GET', path: '/webhooks', itemIndex });
	return toItems(webhooks, itemIndex);
}
