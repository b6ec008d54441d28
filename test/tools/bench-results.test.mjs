// node --test test/tools/ : the benchmark figures the docs quote come from the results file.
// docs/benchmarks/results.json is written by `npm run bench -- --save`; docs/benchmarks.md's
// tables and the README's one line must be exactly what tools/bench/report.mjs makes of it, and
// the other docs quote no benchmark ratio of their own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import {
	HEADLINE_START,
	PAGE,
	README,
	ROOT,
	blocksOf,
	headline,
	readResults,
	renderBlocks,
	when,
} from '../../tools/bench/report.mjs';
import { TESTED_N8N_VERSIONS } from '../../tools/n8n/lines.mjs';

const results = readResults();
const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');

test('every part of the results file names its date, machine, n8n, command and load', () => {
	for (const [name, part] of Object.entries(results.parts)) {
		assert.ok(!Number.isNaN(Date.parse(part.date)), `${name}: date`);
		assert.match(part.machine, /^\d+ cores/, `${name}: machine`);
		assert.match(part.node, /Node v?\d+/, `${name}: node`);
		assert.match(part.n8n, /n8n(-core)? \d+\.\d+\.\d+/, `${name}: n8n`);
		assert.match(
			part.command,
			name.startsWith('queue-')
				? /^npm run e2e -- --queue --n8n \S+ --save$/
				: /^npm run build && npm run bench/,
			`${name}: command`,
		);
		for (const key of ['min', 'mean', 'max', 'cores'])
			assert.equal(typeof part.loadAverage[key], 'number', `${name}: loadAverage.${key}`);
		assert.ok(part.figures !== undefined, `${name}: figures`);
	}
});

test('the results file holds the real-n8n batch and memory figures of every tested n8n line', () => {
	for (const version of TESTED_N8N_VERSIONS) {
		const batch = results.parts[`real-${version}-batch`];
		const memory = results.parts[`real-${version}-memory`];
		assert.ok(batch && memory, version);
		assert.equal(batch.n8n, `n8n ${version}`);
		for (const uploads of [24, 200, 1000])
			for (const kind of ['node', 'diy'])
				assert.ok(
					batch.figures.some((f) => f.kind === kind && f.uploads === uploads),
					`${version}: ${kind} ${uploads}`,
				);
		assert.ok(memory.figures[0].processes >= 4, `${version}: a median of 4 or more processes`);
	}
});

test('the results file holds the queue-mode figures of every tested n8n line', () => {
	for (const version of TESTED_N8N_VERSIONS) {
		const queue = results.parts[`queue-${version}`];
		assert.ok(queue, `queue-${version}: npm run e2e -- --queue --n8n ${version} --save`);
		assert.ok(
			Object.keys(queue.figures).some((name) => name.includes('accepted/s')),
			`queue-${version}: the delivery load's figures`,
		);
	}
});

test("docs/benchmarks.md's tables are the results file's figures", () => {
	const page = readFileSync(PAGE, 'utf8');
	const quoted = blocksOf(page);
	const rendered = renderBlocks(results);
	assert.deepEqual(Object.keys(quoted).sort(), Object.keys(rendered).sort());
	for (const [name, markdown] of Object.entries(rendered))
		assert.equal(quoted[name], markdown, `block ${name}: run node tools/bench/report.mjs`);
});

test("the README's one benchmark line is the results file's headline", () => {
	const lines = readFileSync(README, 'utf8').split('\n');
	const quoted = lines.filter((line) => line.startsWith(HEADLINE_START));
	assert.deepEqual(quoted, [headline(results)]);
	for (const line of lines.filter((l) => /npm run bench/.test(l)))
		assert.ok(line.startsWith(HEADLINE_START), `another README line quotes the bench: ${line}`);
});

test('the other docs quote no benchmark ratio of their own; they link to docs/benchmarks.md', () => {
	for (const file of ['docs/reference.md', 'docs/design.md', 'CONTRIBUTING.md']) {
		const text = read(file);
		for (const line of text.split('\n').filter((l) => /npm run bench/.test(l)))
			assert.doesNotMatch(line, /\d(\.\d+)?×/, `${file}: ${line}`);
		assert.match(text, /benchmarks\.md/, `${file} links to docs/benchmarks.md`);
	}
});

test('a part measured above one load per core is marked "under load"', () => {
	const part = { date: '2026-01-01T00:00:00Z', loadAverage: { min: 3, mean: 4, max: 5, cores: 2 } };
	assert.match(when(part), /under load/);
	assert.doesNotMatch(
		when({ ...part, loadAverage: { min: 0, mean: 1.5, max: 2, cores: 2 } }),
		/under load/,
	);
});
