/**
 * Every default the README states in a table with a "Default" column is the default of that
 * parameter in the built node descriptions, as for docs/reference.md.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { INodeType } from 'n8n-workflow';

import { ACTION_NODE_TYPE, loadPackage, TRIGGER_NODE_TYPE } from '../support/package';
import { agrees, documentedDefaults, parametersNamed, parametersOf } from './documented-defaults';

const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

/** The node each README section with a defaults table documents. */
const SECTIONS: Record<string, string> = {
	'Document Scanning node': ACTION_NODE_TYPE,
	'Document Scanning Trigger': TRIGGER_NODE_TYPE,
};

let nodeTypes: Record<string, INodeType>;
beforeAll(async () => {
	const loaded = (await loadPackage()).nodeTypes;
	nodeTypes = Object.fromEntries(
		Object.values(SECTIONS).map((type) => [type, loaded.getByNameAndVersion(type) as INodeType]),
	);
});

const rows = documentedDefaults(readme);

test('the README states defaults for the action node and the trigger', () => {
	const sections = new Set(rows.map((row) => row.section));
	for (const section of Object.keys(SECTIONS)) expect(sections).toContain(section);
});

test.each(rows.map((row) => [`${row.option} (README.md:${row.line})`, row] as const))(
	"%s: the stated default is the node's",
	(_label, row) => {
		const type = SECTIONS[row.section];
		expect(type).toBeDefined();
		const parameters = parametersNamed(row.option, parametersOf(nodeTypes[type]));
		expect(parameters.length).toBeGreaterThan(0);
		for (const parameter of parameters)
			expect({
				option: row.option,
				stated: row.stated,
				agrees: agrees(row.stated, parameter),
			}).toEqual({ option: row.option, stated: row.stated, agrees: true });
	},
);

test('the checker notices the old "1 s" First Poll Interval', () => {
	const [parameter] = parametersNamed(
		'**First Poll Interval**',
		parametersOf(nodeTypes[ACTION_NODE_TYPE]),
	);
	expect(agrees('1 s', parameter)).toBe(false);
	expect(agrees('0.5 s', parameter)).toBe(true);
});
