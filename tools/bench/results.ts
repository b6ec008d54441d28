/**
 * The benchmark results a reader can check: `npm run bench -- --save` (any benchmark) writes
 * the parts it measured into docs/benchmarks/results.json, each part with the machine, the
 * Node and n8n versions, the date, the command and the load average seen while it ran, and
 * keeps the parts it did not measure. docs/benchmarks.md quotes this file; a test
 * (test/tools/bench-results.test.mjs) checks that every figure it quotes is in it. Without
 * `--save` a run writes only the ignored .bench/results.json.
 */
import * as shared from './results-file';

export const RESULTS_FILE: string = shared.RESULTS_FILE;

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

export const machine: () => string = shared.machine;

/** The command that produced a part, as a reader types it. */
export function command(): string {
	const args = process.argv.slice(2).filter((arg) => arg !== '--save');
	return `npm run build && npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`;
}

/** Samples the 1-minute load average every 5 s until the returned function is called. */
export const watchLoad: () => () => LoadAverage = shared.watchLoad;

export const readResults = (file = RESULTS_FILE): Results => shared.readResults(file) as Results;

/** Replaces the named parts in the results file, keeping the others; returns the file's path. */
export const saveParts = (parts: Record<string, Part>, file = RESULTS_FILE): string =>
	shared.saveParts(parts, file);

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
