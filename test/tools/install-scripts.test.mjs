// node --test test/tools/ : npm's install-script policy (npm 11: `allowScripts` in the package.json
// of the folder npm installs in). Every install the repository runs covers each dependency's
// install script, so npm prints no `install-scripts` warning, and approves only what it needs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { NODE_PACKAGE, ROOT, linePackage, n8nLine } from '../../tools/n8n/local.mjs';
import { TESTED_N8N_VERSIONS } from '../../tools/n8n/lines.mjs';

const json = (file) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

/** Names of the packages with an install script in a lockfile (npm marks them hasInstallScript). */
function withInstallScripts(lockfile) {
	return Object.entries(json(lockfile).packages)
		.filter(([, entry]) => entry.hasInstallScript)
		.map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
}

for (const folder of ['.', 'tools/n8n-node-cli']) {
	test(`${folder}: every dependency with an install script has an allowScripts entry, and none runs`, () => {
		const policy = json(path.join(folder, 'package.json')).allowScripts ?? {};
		const scripted = withInstallScripts(path.join(folder, 'package-lock.json'));
		assert.ok(scripted.length > 0, 'the lockfile marks install scripts');
		assert.deepEqual(
			scripted.filter((name) => !(name in policy)),
			[],
			'not covered: npm warns',
		);
		// The repository builds, lints and tests with no dependency's install script.
		assert.deepEqual(
			Object.entries(policy).filter(([, allowed]) => allowed !== false),
			[],
		);
		// Entries for packages no longer installed are dropped (npm install-scripts prune).
		assert.deepEqual(
			Object.keys(policy).filter((name) => !scripted.includes(name)),
			[],
		);
	});
}

test("Node 24's folder approves the node package's preinstall, which fetches the binary", () => {
	assert.deepEqual(NODE_PACKAGE.allowScripts, { node: true });
});

test("each n8n line's folder approves exactly the native modules the install rebuilds", () => {
	for (const version of TESTED_N8N_VERSIONS) {
		const line = n8nLine(version);
		assert.ok(line.rebuild.includes('sqlite3'), version);
		assert.deepEqual(
			linePackage(line).allowScripts,
			Object.fromEntries(line.rebuild.map((name) => [name, true])),
		);
	}
});
