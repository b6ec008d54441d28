import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRequestList } from './transport';

/** The one template loader: GET /templates, as name / value pairs sorted by name. */
async function loadTemplates(
	ctx: ILoadOptionsFunctions,
	withMode: boolean,
): Promise<INodePropertyOptions[]> {
	const templates = await apiRequestList.call(ctx, { method: 'GET', path: '/templates' });
	return templates
		.map((template: IDataObject) => ({
			name: `${String(template.name ?? `Template ${String(template.id)}`)}${
				withMode && template.extraction_mode ? ` (${String(template.extraction_mode)})` : ''
			}`,
			value: String(template.id),
		}))
		.sort((a, b) => a.name.localeCompare(b.name));
}

/** Templates for the `templateId` resource locator: name and extraction mode, filterable. */
export async function searchTemplates(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const needle = filter?.trim().toLowerCase();
	const results = (await loadTemplates(this, true)).filter(
		(entry) => !needle || entry.name.toLowerCase().includes(needle) || entry.value === needle,
	);
	return { results };
}

/** A trigger's `getTemplates` load-options method (`withMode`: with the extraction mode). */
export function templateOptions(withMode: boolean) {
	return async function getTemplates(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
		return await loadTemplates(this, withMode);
	};
}
