#!/usr/bin/env node
// Validates GitHub Actions workflow files against the workflow schema with action-validator
// (@action-validator/cli, a dev dependency). Without arguments it checks every file in
// .github/workflows/ and requires ci.yml and release.yml to be there; with arguments it checks
// exactly those files. Exit code 1 when any file is invalid or missing.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const VALIDATOR = path.join(ROOT, 'node_modules', '@action-validator', 'cli', 'cli.mjs');
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');
const REQUIRED = ['ci.yml', 'release.yml'];

function filesToCheck(args) {
	if (args.length > 0) return args.map((file) => path.resolve(file));
	const missing = REQUIRED.filter((name) => !existsSync(path.join(WORKFLOWS, name)));
	if (missing.length > 0) {
		console.error(
			`lint:workflows: missing ${missing.map((name) => `.github/workflows/${name}`).join(', ')}`,
		);
		process.exit(1);
	}
	return readdirSync(WORKFLOWS)
		.filter((name) => /\.ya?ml$/.test(name))
		.sort()
		.map((name) => path.join(WORKFLOWS, name));
}

if (!existsSync(VALIDATOR)) {
	console.error('lint:workflows: @action-validator/cli is not installed (run npm ci)');
	process.exit(1);
}

let failed = 0;
for (const file of filesToCheck(process.argv.slice(2))) {
	const label = path.relative(process.cwd(), file) || file;
	if (!existsSync(file)) {
		console.error(`FAIL ${label}: file not found`);
		failed++;
		continue;
	}
	const run = spawnSync(process.execPath, [VALIDATOR, file], { encoding: 'utf8' });
	if (run.status === 0) {
		console.log(`ok   ${label}`);
	} else {
		failed++;
		console.error(`FAIL ${label}`);
		process.stderr.write(run.stdout + run.stderr);
	}
}
process.exit(failed > 0 ? 1 : 0);
