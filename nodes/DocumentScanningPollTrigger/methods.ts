import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { searchTemplates } from '../shared/templates';

/** Templates for the "Template Names or IDs" option (the action node's template search). */
export async function getTemplates(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const { results } = await searchTemplates.call(this);
	return results.map(({ name, value }) => ({ name, value }));
}
