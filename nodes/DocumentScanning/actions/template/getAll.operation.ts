import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { positiveId } from '../params';
import { toItems } from '../../execution/items';
import { apiRequestList } from '../../../shared/transport';
import {
	limitProperty,
	optionsCollection,
	returnAllProperty,
	shownFor,
} from '../common.descriptions';

export const description = shownFor('template', 'getAll', [
	returnAllProperty,
	limitProperty,
	optionsCollection(),
]);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? undefined
		: positiveId(this, this.getNodeParameter('limit', itemIndex, 50), itemIndex, 'Limit');
	// GET /templates is one list of the account's active templates (no pagination in the spec).
	const templates = await apiRequestList.call(this, {
		method: 'GET',
		path: '/templates',
		itemIndex,
	});
	return toItems(templates.slice(0, limit), itemIndex);
}
