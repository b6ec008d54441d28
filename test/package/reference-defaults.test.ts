/**
 * Every default that docs/reference.md states in a table with a "Default" column is the
 * default of that parameter in the built node descriptions (what n8n shows in the editor).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { INodeType } from 'n8n-workflow';

import {
	ACTION_NODE_TYPE,
	loadPackage,
	POLL_TRIGGER_NODE_TYPE,
	TRIGGER_NODE_TYPE,
} from '../support/package';
import { agrees, documentedDefaults, parametersNamed, parametersOf } from './documented-defaults';

const reference = readFileSync(path.resolve(__dirname, '../../docs/reference.md'), 'utf8');

/** The node each top-level section of the reference documents. */
const SECTIONS: Record<string, string> = {
	'Document Scanning node': ACTION_NODE_TYPE,
	'Document Scanning Trigger': TRIGGER_NODE_TYPE,
	'Document Scanning Poll Trigger': POLL_TRIGGER_NODE_TYPE,
};

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
