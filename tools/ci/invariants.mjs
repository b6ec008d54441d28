#!/usr/bin/env node
// `npm run invariants -- [--runs N] [--seed S] [--budget SECONDS] [--kinds upload,getMany,poll,webhook,tool]
//                        [--path P] [--survey] [--verbose]`
//
// Runs the invariant generator (test/invariants/) alone, longer than `npm test` does, or replays
// a failure it printed (`--seed S --path P`). Builds the package first (the tests load dist/, so
// this works on a fresh clone after `npm ci`), then runs jest on test/invariants/ only. Exits
// non-zero when an invariant breaks, so a script can use it as a check with a budget.
// `--survey` does not stop at a failure: it reports the first case and time each class of
// defect was found (docs: CONTRIBUTING.md, "Adding a reading and an invariant").
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FLAGS = {
	'--runs': 'INVARIANTS_RUNS',
	'--seed': 'INVARIANTS_SEED',
	'--budget': 'INVARIANTS_BUDGET_S',
	'--kinds': 'INVARIANTS_KINDS',
	'--path': 'INVARIANTS_PATH',
};
const SWITCHES = { '--survey': 'INVARIANTS_SURVEY', '--verbose': 'INVARIANTS_VERBOSE' };

const env = { ...process.env };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
	const arg = args[i];
	if (arg === '--help' || arg === '-h') {
		console.log(
			'npm run invariants -- [--runs N] [--seed S] [--budget SECONDS] [--kinds upload,getMany,poll,webhook,tool] [--path P] [--survey] [--verbose]',
		);
		process.exit(0);
	}
	if (SWITCHES[arg]) env[SWITCHES[arg]] = '1';
	else if (FLAGS[arg] && args[i + 1] !== undefined) env[FLAGS[arg]] = args[++i];
	else {
		console.error(`Unknown argument ${arg} (npm run invariants -- --help)`);
		process.exit(2);
	}
}
// A fresh seed unless one is given (`npm test` runs the commit's seed); the test prints it.
env.INVARIANTS_SEED ??= String(Math.floor(Math.random() * 2_147_483_647));
// Longer runs get a budget to match unless one is given: about 1.5 s a case.
if (env.INVARIANTS_RUNS && !env.INVARIANTS_BUDGET_S)
	env.INVARIANTS_BUDGET_S = String(Math.max(75, Math.ceil(Number(env.INVARIANTS_RUNS) * 1.5)));

const run = (command, commandArgs) =>
	spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit', env }).status ?? 1;

if (run('npm', ['run', 'build', '--silent']) !== 0) process.exit(1);
process.exit(
	run(process.execPath, [
		path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
		'test/invariants/invariants.test.ts',
	]),
);
