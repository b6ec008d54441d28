/**
 * Every default that docs/reference.md states in a table with a "Default" column is the
 * default of that parameter in the built node descriptions (what n8n shows in the editor).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { INodeProperties, INodePropertyCollection, INodeType } from 'n8n-workflow';

import {
	ACTION_NODE_TYPE,
	loadPackage,
	POLL_TRIGGER_NODE_TYPE,
	TRIGGER_NODE_TYPE,
} from '../support/package';
import { proseLines } from './markdown';

const reference = readFileSync(path.resolve(__dirname, '../../docs/reference.md'), 'utf8');

/** The node each top-level section of the reference documents. */
const SECTIONS: Record<string, string> = {
	'Document Scanning node': ACTION_NODE_TYPE,
	'Document Scanning Trigger': TRIGGER_NODE_TYPE,
	'Document Scanning Poll Trigger': POLL_TRIGGER_NODE_TYPE,
};

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
function parametersOf(type: INodeType): INodeProperties[] {
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
function parametersNamed(option: string, parameters: INodeProperties[]): INodeProperties[] {
	const byName = /\(`([A-Za-z0-9]+)`/.exec(option)?.[1];
	if (byName !== undefined) return parameters.filter((p) => p.name === byName);
	const display = option.replace(/\*\*/g, '').trim();
	return parameters.filter(
		(p) => p.displayName === display || p.displayName.replace(/ \(Seconds\)$/, '') === display,
	);
}

/** Whether the stated default (first word of the cell) is the parameter's default. */
function agrees(stated: string, parameter: INodeProperties): boolean {
	const text = stated.replace(/\*\*/g, '').trim();
	const actual = parameter.default;
	if (typeof actual === 'boolean') return text.startsWith(actual ? 'on' : 'off');
	if (typeof actual === 'number') return Number(/^-?[0-9.]+/.exec(text)?.[0]) === actual;
	if (Array.isArray(actual) || actual === '') return /^(all|none|empty)\b/.test(text);
	if (typeof actual === 'string') return /^`([^`]*)`/.exec(text)?.[1] === actual;
	return false;
}

let nodeTypes: Record<string, INodeType>;
beforeAll(async () => {
	const loaded = (await loadPackage()).nodeTypes;
	nodeTypes = Object.fromEntries(
		Object.values(SECTIONS).map((type) => [type, loaded.getByNameAndVersion(type, 1) as INodeType]),
	);
});

const rows = documentedDefaults(reference);

test('the reference states defaults in tables of every node', () => {
	const sections = new Set(rows.map((row) => row.section));
	for (const section of Object.keys(SECTIONS)) expect(sections).toContain(section);
	expect(rows.length).toBeGreaterThanOrEqual(15);
});

test.each(rows.map((row) => [`${row.option} (docs/reference.md:${row.line})`, row] as const))(
	"%s: the stated default is the node's",
	(_label, row) => {
		const type = SECTIONS[row.section];
		expect(type).toBeDefined();
		const parameters = parametersNamed(row.option, parametersOf(nodeTypes[type]));
		expect(parameters.length).toBeGreaterThan(0);
		for (const parameter of parameters) {
			expect({
				option: row.option,
				stated: row.stated,
				agrees: agrees(row.stated, parameter),
			}).toEqual({
				option: row.option,
				stated: row.stated,
				agrees: true,
			});
		}
	},
);

test('the checker notices a wrong default (the old First Poll Interval of 1)', () => {
	const parameters = parametersNamed(
		'First Poll Interval (`pollInterval`, seconds)',
		parametersOf(nodeTypes[ACTION_NODE_TYPE]),
	);
	expect(parameters.length).toBeGreaterThan(0);
	for (const parameter of parameters) {
		expect(agrees('1', parameter)).toBe(false);
		expect(agrees('0.5', parameter)).toBe(true);
	}
});
