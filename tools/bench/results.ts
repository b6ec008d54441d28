/**
 * The benchmark results a reader can check: `npm run bench -- --save` (any benchmark) writes
 * the parts it measured into docs/benchmarks/results.json, each part with the machine, the
 * Node and n8n versions, the date, the command and the load average seen while it ran, and
 * keeps the parts it did not measure. docs/benchmarks.md quotes this file; a test
 * (test/tools/bench-results.test.mjs) checks that every figure it quotes is in it. Without
 * `--save` a run writes only the ignored .bench/results.json.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const RESULTS_FILE = path.join(__dirname, '..', '..', 'docs', 'benchmarks', 'results.json');

export interface LoadAverage {
	/** 1-minute load average of the machine, sampled every 5 s while the part ran. */
	min: number;
	mean: number;
	max: number;
	cores: number;
}

export interface Part {
	date: string;
	command: string;
	machine: string;
	node: string;
	/** The n8n that ran the figures: n8n-core's engine of the tests, or a real n8n line. */
	n8n: string;
	loadAverage: LoadAverage;
	figures: unknown;
}

export interface Results {
	about: string;
	parts: Record<string, Part>;
}

const ABOUT =
	'Written by `npm run bench -- --save`; each part from its own run (date, machine, command, load average). docs/benchmarks.md explains every figure.';

export function machine(): string {
	const cpus = os.cpus();
	return `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown'}), ${Math.round(os.totalmem() / 1024 ** 3)} GB, ${process.platform}/${process.arch}`;
}

/** The command that produced a part, as a reader types it. */
export function command(): string {
	const args = process.argv.slice(2).filter((arg) => arg !== '--save');
	return `npm run build && npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`;
}

/** Samples the 1-minute load average every 5 s until the returned function is called. */
export function watchLoad(): () => LoadAverage {
	const samples = [os.loadavg()[0]];
	const timer = setInterval(() => samples.push(os.loadavg()[0]), 5000);
	timer.unref();
	return () => {
		clearInterval(timer);
		samples.push(os.loadavg()[0]);
		const round = (value: number) => Math.round(value * 100) / 100;
		return {
			min: round(Math.min(...samples)),
			mean: round(samples.reduce((a, b) => a + b, 0) / samples.length),
			max: round(Math.max(...samples)),
			cores: os.cpus().length,
		};
	};
}

export function readResults(file = RESULTS_FILE): Results {
	if (!existsSync(file)) return { about: ABOUT, parts: {} };
	return JSON.parse(readFileSync(file, 'utf8')) as Results;
}

/** Replaces the named parts in the results file, keeping the others; returns the file's path. */
export function saveParts(parts: Record<string, Part>, file = RESULTS_FILE): string {
	const results = readResults(file);
	const merged: Results = { about: ABOUT, parts: { ...results.parts, ...parts } };
	merged.parts = Object.fromEntries(
		Object.entries(merged.parts).sort(([a], [b]) => a.localeCompare(b)),
	);
	mkdirSync(path.dirname(file), { recursive: true });
	writeFileSync(file, JSON.stringify(merged, null, '\t') + '\n');
	return path.relative(path.join(__dirname, '..', '..'), file);
}

/** A part measured by this process (n8n-core's engine of the tests). */
export function enginePart(figures: unknown, loadAverage: LoadAverage): Part {
	return {
		date: new Date().toISOString(),
		command: command(),
		machine: machine(),
		node: `Node ${process.version}`,
		n8n: `n8n-core ${engineVersion()} (the engine of the tests)`,
		loadAverage,
		figures,
	};
}

function engineVersion(): string {
	try {
		return (require('n8n-core/package.json') as { version: string }).version;
	} catch {
		return 'unknown';
	}
}

export const wantsSave = (): boolean => process.argv.includes('--save');
