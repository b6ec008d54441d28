/**
 * The package as n8n installs it: what `npm pack` ships, what package.json declares, and
 * n8n's own verification lint gate on the source and on the packed tarball.
 * Needs `npm run build` first (npm test does it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

function packedFiles(): string[] {
	const out = execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: root, encoding: 'utf8' });
	const [{ files }] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
	return files.map((file) => file.path);
}

describe('package.json', () => {
	test('declares the community package as n8n expects', () => {
		expect(pkg.name).toBe('n8n-nodes-document-scanning');
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.files).toEqual(['dist']);
		expect(pkg.n8n).toMatchObject({ n8nNodesApiVersion: 1, strict: true });
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(pkg.dependencies ?? {}).toEqual({});
	});

	test('pins the n8n libraries the tests run against', () => {
		expect(pkg.devDependencies['n8n-workflow']).toBe('2.11.1');
		expect(pkg.devDependencies['n8n-core']).toBe('2.11.1');
	});
});

describe('npm pack', () => {
	let files: string[];
	beforeAll(() => {
		files = packedFiles();
	});

	test('ships every node and credential file package.json names', () => {
		const declared = [...pkg.n8n.credentials, ...pkg.n8n.nodes] as string[];
		expect(declared.length).toBe(4);
		for (const file of declared) expect(files).toContain(file);
		expect(files.filter((file) => /^dist\/credentials\/.*\.js$/.test(file)).length).toBeGreaterThan(
			0,
		);
	});

	test('ships the icons and codex files next to the nodes', () => {
		for (const node of pkg.n8n.nodes as string[]) {
			expect(files).toContain(node.replace(/\.js$/, '.json'));
		}
		expect(files).toContain('dist/nodes/DocumentScanning/documentScanning.svg');
		expect(files).toContain('dist/nodes/DocumentScanning/documentScanning.dark.svg');
	});

	test('ships no sources, tests, sandbox or lockfile', () => {
		const stray = files.filter(
			(file) =>
				file !== 'package.json' &&
				file !== 'index.js' &&
				file !== 'README.md' &&
				file !== 'LICENSE' &&
				file !== 'LICENSE.md' &&
				!file.startsWith('dist/'),
		);
		expect(stray).toEqual([]);
		expect(
			files.some((file) => file.startsWith('dist/sandbox') || file.startsWith('dist/test')),
		).toBe(false);
	});
});

describe("n8n's verification scan (@n8n/scan-community-package)", () => {
	test.each([
		['source', []],
		['packed tarball', ['--packed']],
	])('passes on the %s', (label, args) => {
		// eslint-plugin-n8n-nodes-base reads file names differently when NODE_ENV is 'test'
		// (jest sets it), so the scan runs with the environment of a plain shell.
		const { NODE_ENV: _jestEnv, ...shellEnv } = process.env;
		const out = execFileSync(
			process.execPath,
			[path.join(root, 'tools/ci/scan-package.mjs'), ...args],
			{
				cwd: root,
				encoding: 'utf8',
				env: shellEnv,
			},
		);
		expect(out).toContain(`(${label}): passed`);
	});
});
