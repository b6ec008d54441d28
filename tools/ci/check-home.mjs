#!/usr/bin/env node
// Runs jest test files with HOME (and USERPROFILE) pointed at a fresh empty folder and fails
// when anything other than npm's own cache is left in it, or when a test user folder
// (test/support/user-folder.ts) is left in the temporary folder.
//
//   node tools/ci/check-home.mjs [jest test files...]    (default: a few suites of every kind)
//
// jest is started directly (not through npm or npx), with two workers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const DEFAULT_FILES = [
	'test/package/user-folder.test.ts',
	'test/credential/credential.test.ts',
	'test/trigger/lifecycle.test.ts',
	'test/poll-trigger/example.test.ts',
];
// npm's own cache may appear if something in the run calls npm; nothing else may.
const ALLOWED = new Set(['.npm']);
const TEST_FOLDER_PREFIX = 'n8n-nodes-document-scanning-test-';

const testFolders = () =>
	readdirSync(tmpdir()).filter((name) => name.startsWith(TEST_FOLDER_PREFIX));

const files = process.argv.slice(2);
const home = mkdtempSync(path.join(tmpdir(), 'check-home-'));
const foldersBefore = new Set(testFolders());
let status = 1;
try {
	/** @type {NodeJS.ProcessEnv} */
	const env = { ...process.env, HOME: home, USERPROFILE: home };
	// The check is about where the suite writes, so the caller's choice must not hide it.
	delete env.N8N_USER_FOLDER;
	const run = spawnSync(
		process.execPath,
		[JEST, '-w', '2', ...(files.length ? files : DEFAULT_FILES)],
		{
			cwd: ROOT,
			env,
			stdio: 'inherit',
		},
	);
	const left = readdirSync(home).filter((name) => !ALLOWED.has(name));
	const leftFolders = testFolders().filter((name) => !foldersBefore.has(name));
	if (run.status !== 0) console.error(`check-home: jest failed (exit ${run.status ?? run.signal})`);
	if (left.length > 0) console.error(`check-home: FAIL, written into HOME: ${left.join(', ')}`);
	if (leftFolders.length > 0)
		console.error(
			`check-home: FAIL, test user folders left in ${tmpdir()}: ${leftFolders.join(', ')}`,
		);
	if (run.status === 0 && left.length === 0 && leftFolders.length === 0) {
		console.log('check-home: OK, nothing was written into HOME');
		status = 0;
	}
} finally {
	rmSync(home, { recursive: true, force: true });
}
process.exit(status);
