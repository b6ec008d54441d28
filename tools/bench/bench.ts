/**
 * Benchmarks of the action node against the sandbox, which runs in a separate process so
 * that the memory figures are the node's own. Every figure is a ratio measured in this run,
 * side by side; nothing is asserted (goals are read from the output). Writes the ignored
 * .bench/results.json; n8n's user folder is a temporary folder (tools/bench/user-folder.ts), so a run
 * writes nothing into HOME and leaves `git status` clean.
 *
 *   npm run build && npm run bench
 *   npm run bench -- --batches 1,24,100 --processing-ms 3000 --latency-ms 50 --no-real-n8n
 *
 * - batch with waiting (n8n-core engine, the test harness): wall time against the bound
 *   processing time + upload time at the chosen concurrency (uploads alone, same run);
 * - the same in the real n8n of `npm start`, next to the do-it-yourself path
 *   (HTTP Request upload → Wait 5 s → HTTP Request GET), see tools/bench/real-n8n.mjs;
 * - Return All over 1,000 scans against pages × latency;
 * - a re-run of 200 documents with "Return Existing Scan" on 20,000 older scans (tools/bench/rerun.ts);
 * - upload memory: copies of a file held per file in flight.
 */
// First: points n8n's user folder away from HOME before n8n-core loads.
import { benchOutFile } from './user-folder';

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { DEFAULT_API_KEY } from '../../sandbox/server';
import { binaryItem } from '../../test/support/fixtures';
import { runNode } from '../../test/support/run-node';
import type { BatchFigure, PagingFigure } from './batch';
import { batchFigure, pagingFigure, round } from './batch';
import type { SandboxProcess } from './sandbox-process';
import { pdfOfSize, startSandboxProcess } from './sandbox-process';
import { rerunFigures } from './rerun';

const { values } = parseArgs({
	options: {
		'upload-mb': { type: 'string', default: '20' },
		uploads: { type: 'string', default: '4' },
		scans: { type: 'string', default: '1000' },
		batches: { type: 'string', default: '1,24,100' },
		'processing-ms': { type: 'string', default: '3000' },
		'latency-ms': { type: 'string', default: '50' },
		concurrency: { type: 'string', default: '5' },
		envelopes: { type: 'string', default: 'data,bare' },
		'no-real-n8n': { type: 'boolean', default: false },
		'real-n8n-uploads': { type: 'string', default: '200' },
		'mem-files': { type: 'string', default: '50' },
		'mem-mb': { type: 'string', default: '15' },
	},
});
const uploadBytes = Math.floor(Number(values['upload-mb']) * 1024 * 1024);
const uploadCount = Number(values.uploads);
const scanCount = Number(values.scans);
const batches = values.batches.split(',').map(Number);
const processingMs = Number(values['processing-ms']);
const latencyMs = Number(values['latency-ms']);
const concurrency = Number(values.concurrency);
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

async function uploadRun(
	env: { baseUrl: string; apiKey: string },
	uploadCount: number,
	concurrency: number,
	offset: number,
): Promise<MemoryFigure> {
	const items = Array.from({ length: uploadCount }, (_, i) =>
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
				options: { concurrency },
			},
			items,
			env,
		}),
	);
	if (run.result.error) throw run.result.error;
	const uploaded = run.result.output.filter((item) => item.json.id !== undefined).length;
	const inFlight = Math.min(concurrency, uploadCount);
	console.log(
		`upload, concurrency ${concurrency}: ${uploaded}/${uploadCount} files of ${fmt(uploadBytes)} in ${run.ms.toFixed(0)} ms ` +
			`(${((uploadBytes * uploadCount) / MB / (run.ms / 1000)).toFixed(1)} MB/s); ` +
			`peak Buffer memory +${fmt(run.peakBuffers)} = ${(run.peakBuffers / (uploadBytes * inFlight)).toFixed(2)}x the ${inFlight} file(s) in flight; ` +
			`peak RSS +${fmt(run.peakRss)}`,
	);
	return {
		files: uploadCount,
		concurrency,
		fileMb: round(uploadBytes / MB, 1),
		ms: Math.round(run.ms),
		copiesPerFileInFlight: round(run.peakBuffers / (uploadBytes * inFlight)),
	};
}

interface MemoryFigure {
	files: number;
	concurrency: number;
	fileMb: number;
	ms: number;
	copiesPerFileInFlight: number;
}

async function memoryFigure(
	env: { baseUrl: string; apiKey: string },
	count: number,
	width: number,
	offset: number,
): Promise<MemoryFigure> {
	return await uploadRun(env, count, width, offset);
}

/** Runs tools/bench/real-n8n.mjs with Node 24 of .n8n-local (through tools/n8n/local.mjs). */
async function realN8n(sandbox: SandboxProcess, scenarios: object[]): Promise<unknown> {
	const child = spawn(
		process.execPath,
		[path.join(__dirname, 'real-n8n.mjs'), JSON.stringify({ origin: sandbox.origin, scenarios })],
		{
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	let out = '';
	child.stdout.on('data', (chunk: Buffer) => {
		out += chunk.toString();
	});
	await new Promise((resolve) => child.once('exit', resolve));
	const marker = out.lastIndexOf('@@RESULT@@');
	if (marker < 0) return { error: `no result from tools/bench/real-n8n.mjs: ${out.slice(-1000)}` };
	return JSON.parse(out.slice(marker + '@@RESULT@@'.length).trim()) as unknown;
}

function printBatch(prefix: string, f: BatchFigure) {
	console.log(
		`${prefix} ${String(f.uploads).padStart(3)} uploads, ${f.envelope.padEnd(4)}: ${f.wallMs} ms = ${f.ratioToBound}x the bound ` +
			`(${f.processingMs} ms processing + ${f.uploadOnlyMs} ms uploads at concurrency ${f.concurrency}), ${f.ratioToProcessing}x the processing time; ` +
			`${f.getsPerDocument} GET/doc; held ${f.deliveryP50Ms} ms (p50) / ${f.deliveryMaxMs} ms (max) after the service finished; input order ${f.inInputOrder ? 'kept' : 'BROKEN'}`,
	);
}

function printPaging(f: PagingFigure) {
	console.log(
		`Return All ${f.scans} scans (${f.pages} pages), ${f.envelope.padEnd(4)}: ${f.wallMs} ms = ${f.ratio}x pages x latency (${f.sequentialMs} ms); ` +
			`${f.pageRequests} page requests; output ${f.correct ? 'complete, newest first, no duplicates' : 'WRONG'}`,
	);
}

export async function main(): Promise<void> {
	const sandbox = await startSandboxProcess();
	const env = { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY };
	const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), node ${process.version}, ${process.platform}/${process.arch}`;
	console.log(`${machine}; sandbox in a separate process`);
	const results: Record<string, unknown> = {
		date: new Date().toISOString(),
		machine,
		processingMs,
		latencyMs,
		concurrency,
	};
	try {
		// 1. Batch with waiting (harness).
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

		// 2. Return All against pages x latency.
		const paging: PagingFigure[] = [];
		for (const envelope of envelopes) {
			const figure = await pagingFigure(sandbox, { envelope, scans: scanCount, latencyMs });
			printPaging(figure);
			paging.push(figure);
		}
		results.returnAll = paging;
		results.rerun = await rerunFigures(sandbox, { envelopes, latencyMs, concurrency }); // tools/bench/rerun.ts

		// 3. Upload memory: one file alone, then several at once.
		await sandbox.control('POST', 'reset', { processingDelayMs: 10, latencyMs: 0 });
		results.uploadMemory = [
			await memoryFigure(env, 1, 1, 0),
			await memoryFigure(env, uploadCount, 5, 1),
		];

		// 4. Real n8n: the node and the do-it-yourself path on the same sandbox.
		if (values['no-real-n8n']) {
			results.realN8n = { skipped: '--no-real-n8n' };
		} else {
			const uploads = Number(values['real-n8n-uploads']);
			const scenarios: object[] = envelopes.flatMap((envelope) => [
				...(['node', 'diy'] as const).map((kind) => ({
					kind,
					envelope,
					uploads,
					processingMs,
					latencyMs,
					concurrency,
				})),
				{ kind: 'returnAll', envelope, scans: scanCount, latencyMs },
				{ kind: 'timeout', envelope, waitTimeoutS: 1, latencyMs },
			]);
			// Peak memory in filesystem binary mode: the node next to the HTTP Request node.
			const memory = {
				envelope: envelopes[0],
				files: Number(values['mem-files']),
				fileMb: Number(values['mem-mb']),
				concurrency,
				latencyMs,
			};
			if (memory.files > 0)
				scenarios.push({ kind: 'memNode', ...memory }, { kind: 'memHttp', ...memory });
			const real = (await realN8n(sandbox, scenarios)) as {
				skipped?: string;
				error?: string;
				results?: Array<Record<string, unknown>>;
			};
			results.realN8n = real;
			if (real.skipped) console.log(`real n8n: skipped: ${real.skipped}`);
			else if (real.error) console.log(`real n8n: failed: ${real.error}`);
			for (const r of real.results ?? []) {
				if (r.kind === 'returnAll') {
					console.log(
						`real n8n Return All ${r.scans} scans (${r.pages} pages), ${String(r.envelope).padEnd(4)}: ${r.wallMs} ms = ${r.ratio}x pages x latency (${r.sequentialMs} ms); output ${r.correct ? 'complete, newest first, no duplicates' : 'WRONG'}`,
					);
					continue;
				}
				if (r.kind === 'memNode' || r.kind === 'memHttp') {
					const http = (real.results ?? []).find((o) => o.kind === 'memHttp');
					const ratio =
						r.kind === 'memNode' && http
							? ` = ${round(Number(r.peakRssMb) / Number(http.peakRssMb))}x the HTTP Request node`
							: '';
					console.log(
						`real n8n peak memory (filesystem binary mode), ${r.kind === 'memNode' ? 'node        ' : 'HTTP Request'} ${r.files} files of ${r.fileMb} MB at concurrency ${r.concurrency}: ` +
							`peak RSS ${r.peakRssMb} MB${ratio}; ${r.uploaded}/${r.files} uploaded in ${r.wallMs} ms`,
					);
					continue;
				}
				if (r.kind === 'timeout') {
					console.log(
						`real n8n Wait Timeout ${r.waitTimeoutS} s under 429 + Retry-After 30, ${String(r.envelope).padEnd(4)}: the item failed after ${r.wallMs} ms = ${r.ratioToTimeout}x the timeout: "${r.error}"`,
					);
					continue;
				}
				console.log(
					`real n8n ${String(r.kind).padEnd(4)} ${r.uploads} uploads, ${String(r.envelope).padEnd(4)}: ${r.wallMs} ms = ${r.ratioToProcessing}x the processing time; ` +
						`${r.getsPerDocument} GET/doc; held ${r.deliveryP50Ms} ms (p50) / ${r.deliveryMaxMs} ms (max) after the service finished; input order ${r.inInputOrder ? 'kept' : 'BROKEN'}${r.kind === 'diy' ? ` (HTTP Request upload, Wait ${r.waitSeconds} s, HTTP Request GET)` : ''}`,
				);
			}
		}
	} finally {
		sandbox.stop();
	}
	writeFileSync(benchOutFile('results.json'), JSON.stringify(results, null, 2) + '\n');
	console.log(`written: .bench/results.json (${round(process.uptime(), 1)} s)`);
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
