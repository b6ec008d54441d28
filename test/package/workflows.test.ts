/**
 * The GitHub Actions workflows: both pass the workflow schema (action-validator, also run by
 * `npm run lint:workflows` in npm test), an invalid file is refused, and the release workflow
 * publishes with npm provenance only for a tag that matches package.json's version.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const readWorkflow = (name: string) =>
	readFileSync(path.join(root, '.github/workflows', name), 'utf8');

function run(script: string, args: string[]) {
	return spawnSync(process.execPath, [path.join(root, 'tools', 'ci', script), ...args], {
		cwd: root,
		encoding: 'utf8',
	});
}

describe('workflow schema check (npm run lint:workflows)', () => {
	let tmp: string;
	beforeAll(() => {
		tmp = mkdtempSync(path.join(os.tmpdir(), 'workflows-'));
	});
	afterAll(() => rmSync(tmp, { recursive: true, force: true }));

	test('ci.yml and release.yml pass', () => {
		const result = run('lint-workflows.mjs', []);
		expect(result.stdout).toContain('ok   .github/workflows/ci.yml');
		expect(result.stdout).toContain('ok   .github/workflows/release.yml');
		expect(result.status).toBe(0);
	});

	test('a workflow with an unknown job key fails', () => {
		const bad = path.join(tmp, 'bad.yml');
		writeFileSync(
			bad,
			'name: Bad\non: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    step:\n      - run: echo hi\n',
		);
		const result = run('lint-workflows.mjs', [bad]);
		expect(result.status).toBe(1);
		expect(result.stderr).toContain('FAIL');
		expect(result.stderr).toContain("Additional property 'step' is not allowed");
	});

	test('a file that is not YAML fails', () => {
		const bad = path.join(tmp, 'broken.yml');
		writeFileSync(bad, 'name: Broken\non: [push\n');
		expect(run('lint-workflows.mjs', [bad]).status).toBe(1);
	});

	test('npm test runs the check', () => {
		expect(pkg.scripts['lint:workflows']).toBe('node tools/ci/lint-workflows.mjs');
		expect(pkg.scripts.test).toContain('npm run lint:workflows');
	});
});

describe('ci.yml', () => {
	const ci = readWorkflow('ci.yml');
	test('runs on pushes and pull requests: lint, build, test and the scanner', () => {
		expect(ci).toMatch(/^on:\n\s+push:[\s\S]*\n\s+pull_request:/m);
		for (const step of [
			'npm ci',
			'npm run lint',
			'npm run lint:workflows',
			'npm run build',
			'npm test',
			'npm run scan',
		]) {
			expect(ci).toContain(`run: ${step}`);
		}
	});
});

describe('release.yml', () => {
	const release = readWorkflow('release.yml');
	test('runs on version tags only', () => {
		expect(release).toMatch(/^on:\n\s+push:\n\s+tags: \['v\*'\]\n/m);
		expect(release).not.toMatch(/pull_request|branches:/);
	});

	test('may mint the OIDC token for provenance and only read the repository', () => {
		expect(release).toMatch(/permissions:\n\s+contents: read\n\s+id-token: write\n/);
		expect(release).not.toMatch(/: write-all|contents: write/);
	});

	test('checks the tag, builds and tests before it publishes with provenance', () => {
		const order = [
			'run: node tools/ci/check-release-tag.mjs "$GITHUB_REF_NAME"',
			'run: npm ci',
			'run: npm run build',
			'run: npm test',
			'run: npm publish --provenance --access public',
		].map((step) => release.indexOf(step));
		expect(order.every((index) => index > 0)).toBe(true);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
		expect(release).toContain('NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}');
		expect(release).toContain('registry-url: https://registry.npmjs.org');
	});
});

describe('tools/ci/check-release-tag.mjs', () => {
	test('accepts v + the version in package.json', () => {
		const result = run('check-release-tag.mjs', [`v${pkg.version}`]);
		expect(result.status).toBe(0);
		expect(result.stdout).toContain(`matches package.json's version ${pkg.version}`);
	});

	test.each([[`${pkg.version}`], ['v0.0.1'], [`v${pkg.version}-rc.1`], ['']])(
		'refuses "%s"',
		(tag) => {
			const result = run('check-release-tag.mjs', [tag]);
			expect(result.status).toBe(1);
			expect(result.stderr).toContain(`expected the tag "v${pkg.version}"`);
		},
	);
});
