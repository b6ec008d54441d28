// node --test test/tools/ : npm run verify (tools/ci/verify.mjs), n8n's verification checklist.
// Each check passes on a copy of this package and fails on a copy broken in its one respect.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { checks, verify } from '../../tools/ci/verify.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const script = path.join(repo, 'tools', 'ci', 'verify.mjs');
// Checks that need no lint run, build or CLI: quick enough for a fixture each.
const FAST = [
	'name',
	'keyword',
	'license',
	'dependencies',
	'lifecycle',
	'strict',
	'registered',
	'source',
	'provenance',
	'english',
	'readme',
	'cloud-support',
];

const temps = [];
after(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A copy of the files the fast checks read, changed by `change(dir)`. */
function fixture(change = () => {}) {
	const dir = mkdtempSync(path.join(tmpdir(), 'verify-fixture-'));
	temps.push(dir);
	for (const item of [
		'package.json',
		'LICENSE.md',
		'README.md',
		'CHANGELOG.md',
		'CONTRIBUTING.md',
		'eslint.config.mjs',
		'nodes',
		'credentials',
		'docs',
		'.github',
	]) {
		cpSync(path.join(repo, item), path.join(dir, item), {
			recursive: true,
			filter: (src) => !src.endsWith('.png'),
		});
	}
	change(dir);
	return dir;
}
const editJson = (dir, edit) => {
	const file = path.join(dir, 'package.json');
	const pkg = JSON.parse(readFileSync(file, 'utf8'));
	edit(pkg);
	writeFileSync(file, JSON.stringify(pkg, null, 2));
};
const editText = (file, edit) => writeFileSync(file, edit(readFileSync(file, 'utf8')));

async function failedIds(dir) {
	const lines = [];
	await verify(dir, { only: FAST, log: (line) => lines.push(line) });
	return lines.filter((l) => l.startsWith('FAIL')).map((l) => l.split(/\s+/)[1]);
}

test('every check has an id, a title and a run function; ids are unique', () => {
	assert.equal(new Set(checks.map((c) => c.id)).size, checks.length);
	for (const check of checks)
		assert.ok(check.id && check.title && typeof check.run === 'function', check.id);
	for (const id of FAST)
		assert.ok(
			checks.some((c) => c.id === id),
			id,
		);
});

test('an unchanged copy of the package passes every fast check', async () => {
	assert.deepEqual(await failedIds(fixture()), []);
});

const breakages = [
	['name', (dir) => editJson(dir, (p) => (p.name = 'document-scanning-nodes'))],
	[
		'keyword',
		(dir) =>
			editJson(
				dir,
				(p) => (p.keywords = p.keywords.filter((k) => k !== 'n8n-community-node-package')),
			),
	],
	['license', (dir) => editJson(dir, (p) => (p.license = 'ISC'))],
	[
		'license',
		(dir) =>
			editText(path.join(dir, 'LICENSE.md'), (t) => t.replace('MIT License', 'Apache License')),
	],
	['dependencies', (dir) => editJson(dir, (p) => (p.dependencies = { axios: '1.7.0' }))],
	[
		'dependencies',
		(dir) => editJson(dir, (p) => (p.peerDependencies = { ...p.peerDependencies, lodash: '*' })),
	],
	['lifecycle', (dir) => editJson(dir, (p) => (p.scripts.postinstall = 'node setup.js'))],
	['registered', (dir) => editJson(dir, (p) => (p.n8n.nodes = p.n8n.nodes.slice(1)))],
	[
		'registered',
		(dir) =>
			editJson(dir, (p) => p.n8n.credentials.push('dist/credentials/Missing.credentials.js')),
	],
	[
		'source',
		(dir) =>
			editJson(dir, (p) => (p.repository = { type: 'git', url: 'https://gitlab.com/x/y.git' })),
	],
	['source', (dir) => editJson(dir, (p) => delete p.author.email)],
	[
		'provenance',
		(dir) =>
			editText(path.join(dir, '.github/workflows/release.yml'), (t) =>
				t.replace('--provenance', ''),
			),
	],
	[
		'provenance',
		(dir) =>
			editText(path.join(dir, '.github/workflows/release.yml'), (t) =>
				t.replace('id-token: write', 'id-token: read'),
			),
	],
	[
		'english',
		(dir) => editText(path.join(dir, 'README.md'), (t) => `${t}\nУстановка: см. выше.\n`),
	],
	[
		'english',
		(dir) =>
			editText(
				path.join(dir, 'nodes/DocumentScanning/DocumentScanning.node.ts'),
				(t) => `${t}\n// 文档扫描\n`,
			),
	],
	[
		'readme',
		(dir) =>
			editText(path.join(dir, 'README.md'), (t) =>
				t.replace(/^## Credentials$/m, '## Authentication'),
			),
	],
	[
		'cloud-support',
		(dir) =>
			writeFileSync(
				path.join(dir, 'eslint.config.mjs'),
				"import { configWithoutCloudSupport } from '@n8n/node-cli/eslint';\nexport default configWithoutCloudSupport;\n",
			),
	],
];
for (const [id, breakIt] of breakages) {
	test(`a copy broken for "${id}" fails that check and no other (${breakIt.toString().slice(9, 90)})`, async () => {
		assert.deepEqual(await failedIds(fixture(breakIt)), [id]);
	});
}

test('strict mode off fails "strict" and "cloud-support"', async () => {
	assert.deepEqual(
		await failedIds(fixture((dir) => editJson(dir, (p) => (p.n8n.strict = false)))),
		['strict', 'cloud-support'],
	);
});

test('Latin letters with accents count as English text (Müller, facturé)', async () => {
	const dir = fixture((d) =>
		editText(path.join(d, 'README.md'), (t) => `${t}\nA file named Müller-facturé.pdf works.\n`),
	);
	assert.deepEqual(await failedIds(dir), []);
});

test('the command prints one line per check and exits 1 on any FAIL, 0 when all pass', () => {
	const run = (dir) =>
		spawnSync(process.execPath, [script, '--root', dir, '--only', 'name,dependencies'], {
			encoding: 'utf8',
		});
	const good = run(fixture());
	assert.equal(good.status, 0, good.stdout + good.stderr);
	assert.match(good.stdout, /^PASS name /m);
	assert.match(good.stdout, /^PASS dependencies /m);
	assert.match(good.stdout, /^2 passed, 0 failed$/m);
	const bad = run(fixture((dir) => editJson(dir, (p) => (p.dependencies = { axios: '1.7.0' }))));
	assert.equal(bad.status, 1, bad.stdout + bad.stderr);
	assert.match(bad.stdout, /^FAIL dependencies .*dependencies: axios/m);
	assert.match(bad.stdout, /^1 passed, 1 failed$/m);
});

test('an unknown check id is an error, not a silent pass', () => {
	const result = spawnSync(process.execPath, [script, '--root', fixture(), '--only', 'nmae'], {
		encoding: 'utf8',
	});
	assert.equal(result.status, 2);
	assert.match(result.stderr, /unknown check: nmae/);
});
