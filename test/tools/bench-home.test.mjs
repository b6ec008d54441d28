// node --test test/tools/ : a benchmark run writes only into the repository's ignored folders
// and temporary folders. A small part of `npm run bench` (no real n8n) runs with an empty HOME;
// afterwards HOME holds nothing, `git status --porcelain` is what it was, and the results are
// in the ignored .bench/results.json. Needs a build (`npm test` builds first).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const RESULTS = path.join(ROOT, '.bench', 'results.json');
const gitStatus = () =>
	spawnSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).stdout;
const benchFolders = () =>
	readdirSync(tmpdir()).filter((name) => name.startsWith('n8n-nodes-document-scanning-bench-'));

test(
	'a bench run leaves HOME empty and git status unchanged, and writes its results to .bench/',
	{ timeout: 180_000 },
	() => {
		const home = mkdtempSync(path.join(tmpdir(), 'bench-home-'));
		const statusBefore = gitStatus();
		const foldersBefore = new Set(benchFolders());
		const startedAt = Date.now();
		try {
			const env = { ...process.env, HOME: home, USERPROFILE: home };
			delete env.N8N_USER_FOLDER;
			const run = spawnSync(
				process.execPath,
				[
					'--expose-gc',
					'-r',
					'ts-node/register/transpile-only',
					'tools/bench/bench.ts',
					'--no-real-n8n',
					'--batches',
					'2',
					'--envelopes',
					'data',
					'--scans',
					'50',
					'--uploads',
					'1',
					'--upload-mb',
					'1',
					'--processing-ms',
					'200',
					'--latency-ms',
					'5',
				],
				{ cwd: ROOT, env, encoding: 'utf8', timeout: 170_000 },
			);
			assert.equal(run.status, 0, `bench failed:\n${run.stdout}\n${run.stderr}`);
			assert.match(run.stdout, /written: \.bench\/results\.json/);
			assert.deepEqual(readdirSync(home), [], 'nothing may be written into HOME');
			assert.equal(gitStatus(), statusBefore, 'git status must not change');
			assert.ok(
				existsSync(RESULTS) && statSync(RESULTS).mtimeMs >= startedAt,
				'.bench/results.json is written',
			);
			assert.ok(Array.isArray(JSON.parse(readFileSync(RESULTS, 'utf8')).batch));
			assert.deepEqual(
				benchFolders().filter((name) => !foldersBefore.has(name)),
				[],
				'the temporary n8n user folder is removed',
			);
		} finally {
			rmSync(home, { recursive: true, force: true });
		}
	},
);
