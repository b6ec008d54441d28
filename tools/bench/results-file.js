// @ts-check
'use strict';
/**
 * The parts of the benchmark results file every writer shares: the machine's description, the
 * load average sampled while a part ran, and docs/benchmarks/results.json read and merged. Plain
 * CommonJS, so the TypeScript benchmarks (tools/bench/results.ts) and the ES modules (the
 * real-n8n runs, tools/bench/report.mjs, the queue e2e's `--save`) use the same code.
 */
const { existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const RESULTS_FILE = path.join(__dirname, '..', '..', 'docs', 'benchmarks', 'results.json');

const ABOUT =
	'Written by `npm run bench -- --save`; each part from its own run (date, machine, command, load average). docs/benchmarks.md explains every figure.';

/** The label of the Node that runs the real n8n lines (.n8n-local). */
const N8N_NODE = 'Node 24 (.n8n-local)';

/** "2 cores (<model>), 24 GB, linux/x64". */
function machine() {
	const cpus = os.cpus();
	return `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown'}), ${Math.round(os.totalmem() / 1024 ** 3)} GB, ${process.platform}/${process.arch}`;
}

/**
 * Samples the 1-minute load average every 5 s until the returned function is called, which
 * gives { min, mean, max, cores }.
 * @returns {() => { min: number, mean: number, max: number, cores: number }}
 */
function watchLoad() {
	const samples = [os.loadavg()[0]];
	const timer = setInterval(() => samples.push(os.loadavg()[0]), 5000);
	timer.unref();
	return () => {
		clearInterval(timer);
		samples.push(os.loadavg()[0]);
		/** @param {number} value */
		const round = (value) => Math.round(value * 100) / 100;
		return {
			min: round(Math.min(...samples)),
			mean: round(samples.reduce((a, b) => a + b, 0) / samples.length),
			max: round(Math.max(...samples)),
			cores: os.cpus().length,
		};
	};
}

/** The results file, or an empty one when there is none yet. */
function readResults(file = RESULTS_FILE) {
	if (!existsSync(file)) return { about: ABOUT, parts: {} };
	return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * Replaces the named parts in the results file, keeping the others (keys sorted); returns the
 * file's path from the repository's root.
 * @param {Record<string, unknown>} parts
 */
function saveParts(parts, file = RESULTS_FILE) {
	const merged = { about: ABOUT, parts: { ...readResults(file).parts, ...parts } };
	merged.parts = Object.fromEntries(
		Object.entries(merged.parts).sort(([a], [b]) => a.localeCompare(b)),
	);
	mkdirSync(path.dirname(file), { recursive: true });
	writeFileSync(file, JSON.stringify(merged, null, '\t') + '\n');
	return path.relative(path.join(__dirname, '..', '..'), file);
}

module.exports = { N8N_NODE, RESULTS_FILE, machine, watchLoad, readResults, saveParts };
