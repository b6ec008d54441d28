import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequestList } from './transport';

/** Templates for the `templateId` resource locator: name and extraction mode, filterable. */
export async function searchTemplates(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const templates = await apiRequestList.call(this, { method: 'GET', path: '/templates' });
	const needle = filter?.trim().toLowerCase();
	const results = templates
		.map((template) => ({
			name: `${String(template.name ?? `Template ${String(template.id)}`)}${
				template.extraction_mode ? ` (${String(template.extraction_mode)})` : ''
			}`,
			value: String(template.id),
		}))
		.filter(
			(entry) => !needle || entry.name.toLowerCase().includes(needle) || entry.value === needle,
		)
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
