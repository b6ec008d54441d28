/**
 * Benchmarks of the action node, run through n8n-core's engine against the sandbox, which
 * runs in a separate process so that the memory figures are the node's own.
 * Prints figures; asserts nothing (speed and memory goals are read from the output).
 *
 *   npm run build && npm run bench
 *   npm run bench -- --upload-mb 20 --uploads 4 --scans 2000
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { DEFAULT_API_KEY } from '../sandbox/server';
import { binaryItem, runNode } from '../test/harness/n8n';

const { values } = parseArgs({
	options: {
		'upload-mb': { type: 'string', default: '20' },
		uploads: { type: 'string', default: '4' },
		scans: { type: 'string', default: '2000' },
	},
});
const uploadBytes = Math.floor(Number(values['upload-mb']) * 1024 * 1024);
const uploadCount = Number(values.uploads);
const scanCount = Number(values.scans);

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
	return { result, ms, peakBuffers: peakBuffers - start.arrayBuffers, peakRss: peakRss - start.rss };
}

/** A PDF header followed by filler, unique per index so the service does not answer 409. */
function pdfOfSize(bytes: number, index: number): Buffer {
	const file = Buffer.alloc(bytes, 0x20);
	file.write(`%PDF-1.7\n% benchmark file ${index} ${Date.now()}\n`, 0, 'latin1');
	file.write('\n%%EOF\n', bytes - 7, 'latin1');
	return file;
}

/** Starts the sandbox CLI in its own process and resolves with its origin. */
async function startSandboxProcess() {
	const child = spawn(
		process.execPath,
		['-r', 'ts-node/register/transpile-only', path.join(__dirname, '../sandbox/cli.ts'), '--port', '0', '--quiet', '--processing-delay-ms', '10'],
		{ stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TS_NODE_PROJECT: path.join(__dirname, '../sandbox/tsconfig.json') } },
	);
	const origin = await new Promise<string>((resolve, reject) => {
		let out = '';
		child.stdout.on('data', (chunk: Buffer) => {
			out += chunk.toString();
			const match = /Base URL:\s+(http:\/\/[^/\s]+)\/api\/v1/.exec(out);
			if (match) resolve(match[1]);
		});
		child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${out}`)));
	});
	const control = async (method: string, route: string, body?: unknown) => {
		const response = await fetch(`${origin}/__sandbox/${route}`, {
			method,
			headers: { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return (await response.json()) as unknown;
	};
	return { baseUrl: `${origin}/api/v1`, control, stop: () => child.kill('SIGTERM') };
}

async function uploadRun(
	env: { baseUrl: string; apiKey: string },
	uploadCount: number,
	concurrency: number,
	offset: number,
) {
	const items = Array.from({ length: uploadCount }, (_, i) =>
		binaryItem(pdfOfSize(uploadBytes, offset + i), `bench-${offset + i}.pdf`, 'application/pdf'),
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
}

async function main() {
	const sandbox = await startSandboxProcess();
	const env = { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY };
	console.log(`node ${process.version}, ${process.platform}/${process.arch}; sandbox in a separate process`);
	try {
		// 1. Uploads of large files: time, and how many copies of a file the node holds
		//    (one file alone, then several at once).
		await uploadRun(env, 1, 1, 0);
		await uploadRun(env, uploadCount, 5, 1);

		// 2. Get Many over a long listing: pages of 25 until the end.
		await sandbox.control('POST', 'reset', {});
		await sandbox.control('POST', 'scans', { count: scanCount, template_id: 2 });
		await sandbox.control('DELETE', 'requests');
		const list = await measure(() => runNode({ parameters: { resource: 'scan', operation: 'getAll', returnAll: true }, env }));
		if (list.result.error) throw list.result.error;
		const requests = (await sandbox.control('GET', 'requests')) as Array<{ path: string }>;
		const pages = requests.filter((r) => r.path === '/scans').length;
		console.log(
			`getAll: ${list.result.output.length} scans over ${pages} pages in ${list.ms.toFixed(0)} ms ` +
				`(${(list.ms / pages).toFixed(1)} ms/page, ${((list.result.output.length / list.ms) * 1000).toFixed(0)} scans/s); peak RSS +${fmt(list.peakRss)}`,
		);
	} finally {
		sandbox.stop();
	}
}

main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
