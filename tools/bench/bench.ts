/**
 * Benchmarks of the action node against the sandbox, which runs in a separate process so
 * that the memory figures are the node's own. Every figure is a ratio measured in this run,
 * side by side; nothing is asserted (goals are read from the output). Writes the ignored
 * .bench/results.json; with `--save` also the parts it measured into
 * docs/benchmarks/results.json (tools/bench/results.ts), the file docs/benchmarks.md quotes.
 * n8n's user folder is a temporary folder (tools/bench/user-folder.ts), so a run without
 * `--save` leaves `git status` clean.
 *
 *   npm run build && npm run bench
 *   npm run bench -- --parts real --real batch --n8n 2.40.7 --save
 *   npm run bench -- --batches 1,24,100 --processing-ms 3000 --latency-ms 50 --no-real-n8n
 *
 * Parts (`--parts`, default all):
 * - engine: batches with waiting through n8n-core's engine (the test harness), each against the
 *   bound processing time + the same uploads alone; Return All over 1,000 scans;
 * - rerun: a re-run of 200 documents with "Return Existing Scan" (tools/bench/rerun.ts);
 * - upload-memory: in-memory binary mode, Buffer memory per file in flight;
 * - real: in the real n8n lines of .n8n-local (`--n8n`, default both tested lines), the scenarios
 *   of `--real` (default all; tools/bench/real-n8n.mjs): batch (our node next to the
 *   do-it-yourself path at `--real-sizes`, at most `--per-hour` an hour), memory (the upload
 *   step's own peak RSS against the HTTP Request node), returnAll, timeout.
 */
// First: points n8n's user folder away from HOME before n8n-core loads.
import { benchOutFile } from './user-folder';

import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { DEFAULT_API_KEY } from '../../sandbox/server';
import { binaryItem } from '../../test/support/fixtures';
import { runNode } from '../../test/support/run-node';
import { TESTED_N8N_VERSIONS } from '../n8n/lines.mjs';
import type { BatchFigure, PagingFigure } from './batch';
import { batchFigure, pagingFigure, round } from './batch';
import { printBatch, printPaging, printRealLine } from './print';
import type { Part } from './results';
import { command, enginePart, machine, saveParts, wantsSave, watchLoad } from './results';
import type { SandboxProcess } from './sandbox-process';
import { pdfOfSize, startSandboxProcess } from './sandbox-process';
import { rerunFigures } from './rerun';

const { values } = parseArgs({
	options: {
		parts: { type: 'string', default: 'engine,rerun,upload-memory,real' },
		'upload-mb': { type: 'string', default: '20' },
		uploads: { type: 'string', default: '4' },
		scans: { type: 'string', default: '1000' },
		batches: { type: 'string', default: '1,24,200' },
		'processing-ms': { type: 'string', default: '3000' },
		'latency-ms': { type: 'string', default: '50' },
		/** The engine batches' Concurrency; unset: the node's default. */
		concurrency: { type: 'string', default: '' },
		envelopes: { type: 'string', default: 'data,bare' },
		'no-real-n8n': { type: 'boolean', default: false },
		real: { type: 'string', default: 'batch,memory,returnAll,timeout' },
		n8n: { type: 'string', default: TESTED_N8N_VERSIONS.join(',') },
		'real-sizes': { type: 'string', default: '24,200,1000' },
		'per-hour': { type: 'string', default: '200' },
		'mem-files': { type: 'string', default: '50' },
		'mem-mb': { type: 'string', default: '15' },
		'mem-concurrency': { type: 'string', default: '5' },
		'mem-processes': { type: 'string', default: '5' },
		save: { type: 'boolean', default: false },
	},
});
const parts = new Set(values.parts.split(','));
const uploadBytes = Math.floor(Number(values['upload-mb']) * 1024 * 1024);
const uploadCount = Number(values.uploads);
const scanCount = Number(values.scans);
const batches = values.batches.split(',').map(Number);
const processingMs = Number(values['processing-ms']);
const latencyMs = Number(values['latency-ms']);
const concurrency = values.concurrency === '' ? undefined : Number(values.concurrency);
const envelopes = values.envelopes.split(',') as Array<'data' | 'bare'>;

const MB = 1024 * 1024;
const fmt = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

interface Measured<T> {
	result: T;
	ms: number;
	/** Peak growth of Buffer/Blob memory (`arrayBuffers`) and of the whole process (RSS). */
	peakBuffers: number;
	peakRss: number;
}

async function measure<T>(work: () => Promise<T>): Promise<Measured<T>> {
	global.gc?.();
	const start = process.memoryUsage();
	let peakBuffers = start.arrayBuffers;
	let peakRss = start.rss;
	const sample = () => {
		const now = process.memoryUsage();
		peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
		peakRss = Math.max(peakRss, now.rss);
	};
	const timer = setInterval(sample, 2);
	const began = performance.now();
	const result = await work();
	const ms = performance.now() - began;
	clearInterval(timer);
	sample();
	return {
		result,
		ms,
		peakBuffers: peakBuffers - start.arrayBuffers,
		peakRss: peakRss - start.rss,
	};
}

interface MemoryFigure {
	files: number;
	concurrency: number;
	fileMb: number;
	ms: number;
	copiesPerFileInFlight: number;
}

/** In-memory binary mode: `count` files of --upload-mb at Concurrency `width`, Buffer growth. */
async function memoryFigure(
	env: { baseUrl: string; apiKey: string },
	count: number,
	width: number,
	offset: number,
): Promise<MemoryFigure> {
	const items = Array.from({ length: count }, (_, i) =>
		binaryItem(
			pdfOfSize(uploadBytes, `mem-${offset + i}`),
			`bench-${offset + i}.pdf`,
			'application/pdf',
		),
	);
	const run = await measure(() =>
		runNode({
			parameters: {
				resource: 'scan',
				operation: 'upload',
				templateId: { __rl: true, mode: 'id', value: '1' },
				binaryPropertyName: 'data',
				waitForCompletion: false,
				options: { concurrency: width },
			},
			items,
			env,
		}),
	);
	if (run.result.error) throw run.result.error;
	const uploaded = run.result.output.filter((item) => item.json.id !== undefined).length;
	const inFlight = Math.min(width, count);
	console.log(
		`upload, in-memory mode, Concurrency ${width}: ${uploaded}/${count} files of ${fmt(uploadBytes)} in ${run.ms.toFixed(0)} ms; ` +
			`peak Buffer memory +${fmt(run.peakBuffers)} = ${(run.peakBuffers / (uploadBytes * inFlight)).toFixed(2)}x the ${inFlight} file(s) in flight; ` +
			`peak RSS +${fmt(run.peakRss)}`,
	);
	return {
		files: count,
		concurrency: width,
		fileMb: round(uploadBytes / MB, 1),
		ms: Math.round(run.ms),
		copiesPerFileInFlight: round(run.peakBuffers / (uploadBytes * inFlight)),
	};
}

interface RealResult {
	error?: string;
	lines?: Array<Record<string, any>>;
}

/** Runs tools/bench/real-n8n.mjs (Node 24 of .n8n-local, through tools/n8n/local.mjs). */
async function realN8n(sandbox: SandboxProcess, lines: string[], scenarios: object[]) {
	const child = spawn(
		process.execPath,
		[
			path.join(__dirname, 'real-n8n.mjs'),
			JSON.stringify({ origin: sandbox.origin, lines, scenarios }),
		],
		{ stdio: ['ignore', 'pipe', 'inherit'] },
	);
	let out = '';
	child.stdout.on('data', (chunk: Buffer) => {
		out += chunk.toString();
	});
	await new Promise((resolve) => child.once('exit', resolve));
	const marker = out.lastIndexOf('@@RESULT@@');
	if (marker < 0) return { error: `no result from tools/bench/real-n8n.mjs: ${out.slice(-1000)}` };
	return JSON.parse(out.slice(marker + '@@RESULT@@'.length).trim()) as RealResult;
}

/** The scenarios of the real n8n, as --real, --real-sizes and the other flags choose them. */
function realScenarios(): object[] {
	const chosen = new Set(values.real.split(','));
	const envelope = envelopes[0];
	const scenarios: object[] = [];
	if (chosen.has('batch'))
		for (const uploads of values['real-sizes'].split(',').map(Number))
			for (const kind of ['node', 'diy'])
				scenarios.push({
					kind: 'batch',
					batch: kind,
					envelope,
					uploads,
					perHour: Number(values['per-hour']),
					processingMs,
					latencyMs,
				});
	if (chosen.has('memory') && Number(values['mem-files']) > 0)
		scenarios.push({
			kind: 'memory',
			envelope,
			files: Number(values['mem-files']),
			fileMb: Number(values['mem-mb']),
			concurrency: Number(values['mem-concurrency']),
			processes: Number(values['mem-processes']),
			latencyMs,
		});
	for (const env of envelopes) {
		if (chosen.has('returnAll'))
			scenarios.push({ kind: 'returnAll', envelope: env, scans: scanCount, latencyMs });
		if (chosen.has('timeout'))
			scenarios.push({ kind: 'timeout', envelope: env, waitTimeoutS: 1, latencyMs });
	}
	return scenarios;
}

/** One part per line and scenario kind, with the load average seen while its figures ran. */
function realParts(line: Record<string, any>): Record<string, Part> {
	const byKind = new Map<string, Array<Record<string, any>>>();
	for (const figure of line.figures ?? [])
		byKind.set(figure.scenario, [...(byKind.get(figure.scenario) ?? []), figure]);
	const out: Record<string, Part> = {};
	for (const [kind, figures] of byKind) {
		const loads = figures.map((f) => f.loadAverage);
		out[`real-${line.n8n}-${kind}`] = {
			date: figures[0].date,
			command: command(),
			machine: machine(),
			node: String(line.node),
			n8n: `n8n ${line.n8n}`,
			loadAverage: {
				min: Math.min(...loads.map((l) => l.min)),
				mean: round(loads.reduce((sum, l) => sum + l.mean, 0) / loads.length),
				max: Math.max(...loads.map((l) => l.max)),
				cores: loads[0].cores,
			},
			figures,
		};
	}
	return out;
}

export async function main(): Promise<void> {
	const sandbox = await startSandboxProcess();
	const env = { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY };
	console.log(`${machine()}, node ${process.version}; sandbox in a separate process`);
	const results: Record<string, unknown> = {
		date: new Date().toISOString(),
		machine: machine(),
		processingMs,
		latencyMs,
	};
	const saved: Record<string, Part> = {};
	try {
		if (parts.has('engine')) {
			// 1. Batches with waiting and Return All, through n8n-core's engine.
			let load = watchLoad();
			const batch: BatchFigure[] = [];
			for (const envelope of envelopes) {
				for (const uploads of batches) {
					const figure = await batchFigure(sandbox, {
						envelope,
						uploads,
						concurrency,
						processingMs,
						latencyMs,
					});
					printBatch('batch (n8n-core engine)', figure);
					batch.push(figure);
				}
			}
			results.batch = batch;
			saved['engine-batch'] = enginePart(batch, load());
			load = watchLoad();
			const paging: PagingFigure[] = [];
			for (const envelope of envelopes) {
				const figure = await pagingFigure(sandbox, { envelope, scans: scanCount, latencyMs });
				printPaging('n8n-core engine: ', figure);
				paging.push(figure);
			}
			results.returnAll = paging;
			saved['engine-return-all'] = enginePart(paging, load());
		}
		if (parts.has('rerun')) {
			const load = watchLoad();
			// tools/bench/rerun.ts
			results.rerun = await rerunFigures(sandbox, { envelopes, latencyMs, concurrency: 5 });
			saved.rerun = enginePart(results.rerun, load());
		}
		if (parts.has('upload-memory')) {
			// In-memory mode: one file alone, then several at once.
			const load = watchLoad();
			await sandbox.control('POST', 'reset', { processingDelayMs: 10, latencyMs: 0 });
			results.uploadMemory = [
				await memoryFigure(env, 1, 1, 0),
				await memoryFigure(env, uploadCount, 5, 1),
			];
			saved['engine-upload-memory'] = enginePart(results.uploadMemory, load());
		}
		if (parts.has('real')) {
			if (values['no-real-n8n']) {
				results.realN8n = { skipped: '--no-real-n8n' };
			} else {
				const real = await realN8n(sandbox, values.n8n.split(','), realScenarios());
				results.realN8n = real;
				if (real.error) console.log(`real n8n: failed: ${real.error}`);
				for (const line of real.lines ?? []) {
					printRealLine(line);
					if (!line.skipped) Object.assign(saved, realParts(line));
				}
			}
		}
	} finally {
		sandbox.stop();
	}
	writeFileSync(benchOutFile('results.json'), JSON.stringify(results, null, 2) + '\n');
	console.log(`written: .bench/results.json (${round(process.uptime(), 1)} s)`);
	if (wantsSave() || values.save) {
		const file = saveParts(saved);
		console.log(`saved: ${Object.keys(saved).join(', ') || 'nothing'} into ${file}`);
		// docs/benchmarks.md and the README quote the file (tools/bench/report.mjs).
		spawnSync(process.execPath, [path.join(__dirname, 'report.mjs')], { stdio: 'inherit' });
	}
}

if (require.main === module) {
	main().then(
		() => process.exit(0),
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
