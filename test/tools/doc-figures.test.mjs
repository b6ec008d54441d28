// node --test test/tools/ : the docs state the figures of tools/constants.mjs, and count no
// example workflows or sample invoices by hand (examples/ and tools/n8n/sample-invoices.mjs grow).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { FIRST_RUN, LOCAL_NODE_MAJOR, N8N_NODE_RANGES } from '../../tools/constants.mjs';
import { NODE_SPEC, ROOT, TESTED_N8N_VERSIONS } from '../../tools/n8n/local.mjs';

const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');
/** Markdown as one line of text: soft line breaks and indentation are only layout. */
const flat = (file) => read(file).replace(/\s+/g, ' ');
const DOCS = ['README.md', 'CONTRIBUTING.md', 'docs/local-n8n.md'];
const SCRIPTS = ['tools/n8n/start.mjs', 'tools/n8n/local.mjs', 'tools/e2e/e2e.mjs'];
const firstScreen = (text) => text.slice(0, text.indexOf('## Installation')).replace(/\s+/g, ' ');

test("the README's first screen gives the first run's time and disk, the login and the examples' reset", () => {
	const screen = firstScreen(read('README.md'));
	assert.ok(
		screen.includes(`about ${FIRST_RUN.minutes} minutes and about ${FIRST_RUN.disk}`),
		screen,
	);
	assert.match(screen, new RegExp(`Node ${LOCAL_NODE_MAJOR}`));
	assert.match(screen, /prints where to log in/);
	assert.match(screen, /examples are imported inactive and reset on each start/);
	assert.match(screen, /sample invoices say, invented data for any other file/);
});

test('every doc that gives the first run a duration gives the one of tools/constants.mjs', () => {
	const [lo, hi] = FIRST_RUN.minutes.split('–');
	for (const file of [...DOCS, ...SCRIPTS]) {
		const ranges = [...flat(file).matchAll(/(\d+½?)\s*(?:to|–|-)\s*(\d+)\s*min/g)].map((m) => [
			m[1],
			m[2],
		]);
		for (const range of ranges)
			assert.deepEqual(range, [lo, hi], `${file}: ${range.join('–')} minutes`);
		assert.doesNotMatch(flat(file), /3½ minutes|up to ~7/, file);
	}
	assert.ok(
		flat('docs/local-n8n.md').includes(
			`about ${FIRST_RUN.minutes} minutes and about ${FIRST_RUN.disk}`,
		),
	);
	assert.ok(
		flat('CONTRIBUTING.md').includes(
			`about ${FIRST_RUN.minutes} minutes and about ${FIRST_RUN.disk}`,
		),
	);
});

test("the Node of the repository and the Node of each n8n line are stated apart, as package.json and n8n's engines say", () => {
	assert.equal(NODE_SPEC, LOCAL_NODE_MAJOR);
	const repoNode = /^>=(\d+\.\d+)$/.exec(JSON.parse(read('package.json')).engines.node)[1];
	assert.deepEqual(Object.keys(N8N_NODE_RANGES).sort(), [...TESTED_N8N_VERSIONS].sort());
	for (const file of DOCS) {
		for (const m of flat(file).matchAll(/Node(?:\.js)? ≥ (\d+(?:\.\d+)?)/g))
			assert.equal(m[1], repoNode, `${file}: "${m[0]}"`);
	}
	const local = flat('docs/local-n8n.md');
	for (const [version, range] of Object.entries(N8N_NODE_RANGES)) {
		assert.ok(
			local.includes(`n8n ${version} asks for Node ${range}`) ||
				local.includes(`n8n ${version} for Node ${range}`),
			`${version}: ${range}`,
		);
	}
	const readme = flat('README.md');
	assert.ok(readme.includes(`n8n 1.123: Node.js ${N8N_NODE_RANGES['1.123.81']}`));
	assert.ok(readme.includes(`n8n 2.40: Node.js ${N8N_NODE_RANGES['2.40.7']}`));
});

test('no doc counts the example workflows or the sample invoices by hand', () => {
	const counted =
		/\b(?:two|three|four|five|six|seven|\d+)\s+(?:imported\s+|sample\s+|example\s+|small\s+valid\s+sample\s+)?(?:`?examples?\b|invoices\b|PDFs\b|sample PDFs|workflows\b)/gi;
	for (const file of [...DOCS, 'docs/sandbox.md']) {
		const found = [...flat(file).matchAll(counted)].map((m) => m[0]);
		assert.deepEqual(found, [], file);
	}
});
