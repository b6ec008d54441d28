/**
 * Defaults the guides state in tables with a "Default" column, and the check that each is the
 * default of that parameter in the built node descriptions (what n8n shows in the editor).
 */
import type { INodeProperties, INodePropertyCollection, INodeType } from 'n8n-workflow';

import { proseLines } from './markdown';

interface DocumentedDefault {
	section: string;
	line: number;
	option: string;
	stated: string;
}

/** Rows of every table whose header has a "Default" column, with the section they are in. */
export function documentedDefaults(markdown: string): DocumentedDefault[] {
	const rows: DocumentedDefault[] = [];
	let section = '';
	let defaultColumn = -1;
	const cells = (line: string) =>
		line
			.trim()
			.replace(/^\||\|$/g, '')
			.split('|')
			.map((cell) => cell.trim());
	for (const { line, number } of proseLines(markdown)) {
		const heading = /^## (.*)$/.exec(line);
		if (heading) section = heading[1].trim();
		if (!line.trim().startsWith('|')) {
			defaultColumn = -1;
			continue;
		}
		const row = cells(line);
		if (defaultColumn < 0) {
			defaultColumn = row.indexOf('Default');
			continue;
		}
		if (row.every((cell) => /^:?-+:?$/.test(cell))) continue;
		rows.push({ section, line: number, option: row[0], stated: row[defaultColumn] });
	}
	return rows;
}

/** Every parameter of a node, collections' options included, by display name and by name. */
export function parametersOf(type: INodeType): INodeProperties[] {
	const out: INodeProperties[] = [];
	const walk = (list: Array<INodeProperties | INodePropertyCollection>) => {
		for (const entry of list) {
			if ('type' in entry) out.push(entry);
			const nested = (entry as INodeProperties).options;
			if (
				Array.isArray(nested) &&
				nested.some(
					(child) =>
						typeof child === 'object' && 'name' in child && ('type' in child || 'values' in child),
				)
			) {
				walk(
					nested.flatMap((child) =>
						'values' in child ? child.values : [child],
					) as INodeProperties[],
				);
			}
		}
	};
	walk(type.description.properties);
	return out;
}

/** The parameters a table row names: `(\`name\`…)` or the bold display name. */
export function parametersNamed(option: string, parameters: INodeProperties[]): INodeProperties[] {
	const byName = /\(`([A-Za-z0-9]+)`/.exec(option)?.[1];
	if (byName !== undefined) return parameters.filter((p) => p.name === byName);
	const display = option.replace(/\*\*/g, '').trim();
	return parameters.filter(
		(p) => p.displayName === display || p.displayName.replace(/ \(Seconds\)$/, '') === display,
	);
}

/** Whether the stated default (first word of the cell) is the parameter's default. */
export function agrees(stated: string, parameter: INodeProperties): boolean {
	const text = stated.replace(/\*\*/g, '').trim();
	const actual = parameter.default;
	if (typeof actual === 'boolean') return text.startsWith(actual ? 'on' : 'off');
	if (typeof actual === 'number') return Number(/^-?[0-9.]+/.exec(text)?.[0]) === actual;
	if (Array.isArray(actual) || actual === '') return /^(all|both|none|empty)\b/.test(text);
	if (typeof actual === 'string') {
		const code = /^`([^`]*)`/.exec(text)?.[1];
		if (code !== undefined) return code === actual;
		// A display name, as the editor shows the option (e.g. "Raw Scan" for `raw`).
		const option = (parameter.options ?? []).find(
			(entry) => 'value' in entry && entry.value === actual,
		);
		return option !== undefined && text.startsWith(option.name);
	}
	return false;
}
