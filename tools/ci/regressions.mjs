#!/usr/bin/env node
// `npm run regressions -- [--only 01,05] [--seed S] [--budget SECONDS] [--baseline] [--keep]`
//
// Proves the invariant generator (test/invariants/) on real defects: each patch of
// test/invariants/regressions/ brings one class of defect back into nodes/. For each in turn,
// in a copy of the working tree in a temporary folder (the working tree is never touched;
// node_modules is linked): nodes/ as in the working tree, the patch applied (it fails loudly
// when it no longer applies), the package built, and the generator run as `npm test` runs it
// (one seed, the same time budget) on the patch's kinds of case, counting only the invariant
// the patch names. Prints a table (patch, found or not, invariant, cases and seconds until
// found) and exits non-zero unless every regression was found. Run it before every stop that
// touches nodes/ (CONTRIBUTING.md, "Adding a reading and an invariant").
// `--baseline` first runs the unpatched copy with every listed invariant: it must find none.
import { spawnSync } from 'node:child_process';
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	symlinkSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PATCHES = path.join(root, 'test', 'invariants', 'regressions');
/** The generator's defaults in `npm test` (test/invariants/generator.ts): one seed, 75 s. */
const DEFAULTS = { seed: 31, budget: 75 };

const options = { ...DEFAULTS, only: undefined, baseline: false, keep: false };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
	const arg = args[i];
	if (arg === '--only') options.only = args[++i].split(',');
	else if (arg === '--seed') options.seed = Number(args[++i]);
	else if (arg === '--budget') options.budget = Number(args[++i]);
	else if (arg === '--baseline') options.baseline = true;
	else if (arg === '--keep') options.keep = true;
	else {
		console.error(
			`Unknown argument ${arg}: npm run regressions -- [--only 01,05] [--seed S] [--budget SECONDS] [--baseline] [--keep]`,
		);
		process.exit(2);
	}
}

/** A patch file: `Regression:`, `Invariant:`, `Kinds:` lines, a description, then the diff. */
function readPatch(file) {
	const text = readFileSync(path.join(PATCHES, file), 'utf8');
	const field = (name) => new RegExp(`^${name}: (.+)$`, 'm').exec(text)?.[1].trim();
	const invariant = Number(field('Invariant'));
	const kinds = field('Kinds');
	if (!field('Regression') || !Number.isInteger(invariant) || !kinds || !text.includes('\ndiff '))
		throw new Error(`${file}: needs Regression:, Invariant:, Kinds: lines and a diff`);
	return {
		id: file.slice(0, 2),
		name: file.replace(/\.patch$/, ''),
		file: path.join(PATCHES, file),
		title: field('Regression'),
		invariant,
		kinds: kinds === 'all' ? '' : kinds,
	};
}

const all = readdirSync(PATCHES)
	.filter((file) => file.endsWith('.patch'))
	.sort()
	.map(readPatch);
// `--only` selects by number: two patches of one number would run (and be reported) as one.
for (const [i, patch] of all.entries())
	if (!/^\d\d$/.test(patch.id) || all.findIndex((other) => other.id === patch.id) !== i) {
		console.error(`${patch.name}.patch: each patch needs a number of its own (NN-name.patch)`);
		process.exit(2);
	}
const patches = all.filter((patch) => !options.only || options.only.includes(patch.id));
if (patches.length === 0) {
	console.error('No regression patch selected.');
	process.exit(2);
}

const run = (command, commandArgs, cwd, env = process.env) =>
	spawnSync(command, commandArgs, { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });

// The working tree as it is (tracked and new files, not ignored ones), nodes/ restored per patch.
const listed = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root);
if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
const files = listed.stdout.split('\0').filter((file) => file && existsSync(path.join(root, file)));
const copy = mkdtempSync(path.join(os.tmpdir(), 'docscan-regressions-'));
const copyFiles = (filter) => {
	for (const file of files.filter(filter)) {
		mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
		cpSync(path.join(root, file), path.join(copy, file));
	}
};
copyFiles(() => true);
symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');

/** Builds the copy; throws with the compiler's words when it does not build. */
function build() {
	rmSync(path.join(copy, 'dist'), { recursive: true, force: true });
	for (const [command, commandArgs] of [
		[process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']],
		[process.execPath, ['tools/ci/build-assets.js']],
	]) {
		const result = run(command, commandArgs, copy);
		if (result.status !== 0) throw new Error(`build failed: ${result.stdout}${result.stderr}`);
	}
}

/** The generator on the copy: the first case that broke a target invariant, or none. */
function generate(name, target, kinds) {
	const report = path.join(copy, `${name}.json`);
	rmSync(report, { force: true });
	const env = {
		...process.env,
		INVARIANTS_SEED: String(options.seed),
		INVARIANTS_RUNS: '100000',
		INVARIANTS_BUDGET_S: String(options.budget),
		INVARIANTS_TARGET: target,
		INVARIANTS_KINDS: kinds,
		INVARIANTS_REPORT: report,
	};
	const jest = path.join('node_modules', 'jest', 'bin', 'jest.js');
	const started = Date.now();
	const result = run(process.execPath, [jest, 'test/invariants/invariants.test.ts'], copy, env);
	if (!existsSync(report))
		throw new Error(`the generator did not report:\n${result.stdout}${result.stderr}`);
	const { runs, first } = JSON.parse(readFileSync(report, 'utf8'));
	return { runs, first, wall: Math.round((Date.now() - started) / 1000) };
}

const rows = [];
/** What each found case broke, as the generator worded it. */
const details = [];
let failed = false;
try {
	if (options.baseline) {
		build();
		const target = [...new Set(patches.map((patch) => patch.invariant))].join(',');
		const { runs, first, wall } = generate('baseline', target, '');
		failed ||= first !== undefined;
		rows.push([
			'(none: the code as it is)',
			first ? `FOUND (${first.kind})` : 'none (right)',
			first ? String(first.violation.invariant) : target,
			String(first?.run ?? runs),
			String(first?.seconds ?? wall),
		]);
		if (first) details.push(`(none): ${first.violation.where}: ${first.violation.detail}`);
	}
	for (const patch of patches) {
		process.stdout.write(`${patch.name} ...`);
		rmSync(path.join(copy, 'nodes'), { recursive: true, force: true });
		copyFiles((file) => file.startsWith('nodes/'));
		const applied = run('git', ['apply', '--verbose', patch.file], copy);
		if (applied.status !== 0) {
			failed = true;
			rows.push([
				patch.name,
				`DOES NOT APPLY: ${applied.stderr.trim().split('\n').pop()}`,
				'',
				'',
				'',
			]);
			process.stdout.write(' does not apply\n');
			continue;
		}
		build();
		const { runs, first, wall } = generate(patch.name, String(patch.invariant), patch.kinds);
		failed ||= first === undefined;
		rows.push([
			patch.name,
			first ? 'found' : 'NOT FOUND',
			String(patch.invariant),
			first ? String(first.run) : `${runs} (all)`,
			first ? String(first.seconds) : `${wall} (all)`,
		]);
		process.stdout.write(
			first ? ` found at case ${first.run}, ${first.seconds} s\n` : ' not found\n',
		);
		if (first)
			details.push(
				`${patch.id} (${first.kind}, ${first.violation.where}): ${first.violation.detail}`,
			);
	}
} finally {
	if (options.keep) console.log(`The copy is kept in ${copy}`);
	else rmSync(copy, { recursive: true, force: true });
}

const header = ['patch', 'found', 'invariant', 'cases', 'seconds'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
console.log(
	[
		'',
		`Regressions (seed ${options.seed}, ${options.budget} s each; npm run regressions -- --seed ${options.seed} --budget ${options.budget}):`,
		line(header),
		line(widths.map((w) => '-'.repeat(w))),
		...rows.map(line),
		'',
		...details.map((detail) => `- ${detail.slice(0, 240)}`),
	].join('\n'),
);
process.exit(failed ? 1 : 0);
