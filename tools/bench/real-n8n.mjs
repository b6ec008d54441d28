/**
 * Runs batch workflows in the real n8n that `npm start` installs (.n8n-local/, n8n 1.123.81 on
 * Node 24), against a sandbox that is already running, and prints one JSON document:
 *
 *   node tools/bench/real-n8n.mjs '{"origin":"http://127.0.0.1:PORT","scenarios":[...]}'
 *
 * Each scenario: { kind, envelope, latencyMs, … }:
 * - "node" (uploads, processingMs, concurrency): Manual Trigger → Code (N PDFs) → Document
 *   Scanning (Upload, Wait for Completion);
 * - "diy" (the same): the do-it-yourself path: Code → HTTP Request v4 (multipart upload) →
 *   Wait 5 s → HTTP Request (GET /scans/{id});
 * - "returnAll" (scans): Document Scanning (Scan → Get Many, Return All) over seeded scans;
 * - "timeout" (waitTimeoutS): one upload with waiting while the sandbox holds the scan and
 *   answers every GET /scans/{id} with 429 + Retry-After: 30;
 * - "memNode" / "memHttp" (files, fileMb, concurrency): peak memory of uploads in filesystem
 *   binary mode (N8N_DEFAULT_BINARY_DATA_MODE=filesystem): Read/Write Files from Disk reads the
 *   files (written once into .n8n-local/files/bench-memory/), then Document Scanning (Upload,
 *   Concurrency) or HTTP Request v4 (multipart upload, batches of `concurrency`). The figure is
 *   the peak RSS (VmHWM) of the `n8n execute` process.
 * Every workflow runs with `n8n execute --id --rawOutput` in a fresh n8n home
 * (.n8n-local/bench-home/); times come from n8n's own run data (node start + execution time),
 * so n8n's boot is not counted. When n8n is not installed it prints { skipped: "…" }.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import {
	CREDENTIAL,
	FILES_DIR,
	LOCAL,
	SANDBOX_KEY,
	freePort,
	importCredential,
	importWorkflow,
	installPackage,
	n8nEnv,
	n8nIsInstalled,
	n8nSpawn,
	n8nSync,
} from '../n8n/local.mjs';

const WAIT_SECONDS = 5;

function codeNode(uploads) {
	return {
		id: 'code',
		name: 'Make PDFs',
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		position: [200, 0],
		parameters: {
			jsCode: [
				`const items = [];`,
				`for (let i = 0; i < ${uploads}; i++) {`,
				`  const text = '%PDF-1.4\\n% bench ' + $execution.id + ' ' + Date.now() + ' ' + Math.random() + ' ' + i + '\\n%%EOF\\n';`,
				`  items.push({ json: { i }, binary: { data: { data: Buffer.from(text).toString('base64'), mimeType: 'application/pdf', fileName: 'real-' + i + '.pdf', fileExtension: 'pdf' } } });`,
				`}`,
				`return items;`,
			].join('\n'),
		},
	};
}

const trigger = {
	id: 'trigger',
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

const credentials = { documentScanningApi: { id: CREDENTIAL.id, name: CREDENTIAL.name } };

/** This package's Scan → Upload of each item's `data`, Concurrency at a time. */
function scanUploadNode({ id, name, concurrency, wait }) {
	return {
		id,
		name,
		type: 'n8n-nodes-document-scanning.documentScanning',
		typeVersion: 1,
		position: [400, 0],
		credentials,
		parameters: {
			resource: 'scan',
			operation: 'upload',
			templateId: { __rl: true, mode: 'id', value: '1' },
			binaryPropertyName: 'data',
			waitForCompletion: wait,
			options: { concurrency },
		},
	};
}

/** n8n's HTTP Request node posting each item's `data` to POST /scans (the do-it-yourself path). */
function httpUploadNode(baseUrl, headers, options) {
	return {
		id: 'upload',
		name: 'Upload',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [400, 0],
		parameters: {
			method: 'POST',
			url: `${baseUrl}/scans`,
			sendHeaders: true,
			headerParameters: headers,
			sendBody: true,
			contentType: 'multipart-form-data',
			bodyParameters: {
				parameters: [
					{ name: 'template_id', value: '1' },
					{ parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'data' },
				],
			},
			options,
		},
	};
}

function nodeWorkflow(id, scenario) {
	return {
		id,
		name: `bench node ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			trigger,
			codeNode(scenario.uploads),
			scanUploadNode({ id: 'scan', name: 'Scan', concurrency: scenario.concurrency, wait: true }),
		],
		connections: {
			Start: { main: [[{ node: 'Make PDFs', type: 'main', index: 0 }]] },
			'Make PDFs': { main: [[{ node: 'Scan', type: 'main', index: 0 }]] },
		},
	};
}

function diyWorkflow(id, scenario, baseUrl) {
	const headers = {
		parameters: [
			{ name: 'Authorization', value: `Bearer ${SANDBOX_KEY}` },
			{ name: 'Accept', value: 'application/json' },
		],
	};
	return {
		id,
		name: `bench diy ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			trigger,
			codeNode(scenario.uploads),
			httpUploadNode(baseUrl, headers, {}),
			{
				id: 'wait',
				name: 'Wait',
				type: 'n8n-nodes-base.wait',
				typeVersion: 1.1,
				position: [600, 0],
				webhookId: '5f0c7c1e-0000-4000-8000-00000000b001',
				parameters: { amount: WAIT_SECONDS, unit: 'seconds' },
			},
			{
				id: 'get',
				name: 'Get',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [800, 0],
				parameters: {
					method: 'GET',
					url: `=${baseUrl}/scans/{{ $json.data ? $json.data.id : $json.id }}`,
					sendHeaders: true,
					headerParameters: headers,
					options: {},
				},
			},
		],
		connections: {
			Start: { main: [[{ node: 'Make PDFs', type: 'main', index: 0 }]] },
			'Make PDFs': { main: [[{ node: 'Upload', type: 'main', index: 0 }]] },
			Upload: { main: [[{ node: 'Wait', type: 'main', index: 0 }]] },
			Wait: { main: [[{ node: 'Get', type: 'main', index: 0 }]] },
		},
	};
}

function returnAllWorkflow(id) {
	return {
		id,
		name: `bench return all ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			trigger,
			{
				id: 'list',
				name: 'Scan',
				type: 'n8n-nodes-document-scanning.documentScanning',
				typeVersion: 1,
				position: [200, 0],
				credentials,
				parameters: { resource: 'scan', operation: 'getAll', returnAll: true },
			},
		],
		connections: { Start: { main: [[{ node: 'Scan', type: 'main', index: 0 }]] } },
	};
}

function timeoutWorkflow(id, scenario) {
	const workflow = nodeWorkflow(id, { ...scenario, uploads: 1 });
	const scan = workflow.nodes.find((node) => node.name === 'Scan');
	scan.onError = 'continueRegularOutput';
	scan.parameters.options = { waitTimeout: scenario.waitTimeoutS };
	workflow.name = `bench timeout ${id}`;
	return workflow;
}

const MEMORY_DIR = path.join(FILES_DIR, 'bench-memory');

/** `files` distinct PDFs of `fileMb` MB each, written once (kept for later runs; ignored folder). */
function memoryFiles(files, fileMb) {
	const dir = path.join(MEMORY_DIR, `${files}x${fileMb}mb`);
	const size = Math.round(fileMb * 1024 * 1024);
	mkdirSync(dir, { recursive: true });
	for (let i = 0; i < files; i++) {
		const file = path.join(dir, `mem-${String(i).padStart(3, '0')}.pdf`);
		if (existsSync(file) && statSync(file).size === size) continue;
		const bytes = Buffer.alloc(size, 0x20);
		bytes.write(`%PDF-1.4\n% bench memory file ${i}\n`, 0);
		for (let at = 64; at < size - 16; at += 4096)
			bytes.writeUInt32LE((i * 2654435761 + at) >>> 0, at);
		bytes.write('\n%%EOF\n', size - 7);
		writeFileSync(file, bytes);
	}
	return dir;
}

function memoryWorkflow(id, scenario, baseUrl, dir) {
	const read = {
		id: 'read',
		name: 'Read files',
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1,
		position: [200, 0],
		parameters: { operation: 'read', fileSelector: `${dir}/*.pdf`, options: {} },
	};
	const upload =
		scenario.kind === 'memNode'
			? scanUploadNode({
					id: 'upload',
					name: 'Upload',
					concurrency: scenario.concurrency,
					wait: false,
				})
			: httpUploadNode(
					baseUrl,
					{ parameters: [{ name: 'Authorization', value: `Bearer ${SANDBOX_KEY}` }] },
					{ batching: { batch: { batchSize: scenario.concurrency, batchInterval: 0 } } },
				);
	return {
		id,
		name: `bench memory ${scenario.kind} ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [trigger, read, upload],
		connections: {
			Start: { main: [[{ node: 'Read files', type: 'main', index: 0 }]] },
			'Read files': { main: [[{ node: 'Upload', type: 'main', index: 0 }]] },
		},
	};
}

/** Peak resident memory so far (VmHWM) of a process, in bytes; undefined once it is gone. */
function peakRss(pid) {
	try {
		const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return match ? Number(match[1]) * 1024 : undefined;
	} catch {
		return undefined;
	}
}

/** Runs `n8n execute` and follows its peak RSS (Linux /proc) until it exits. */
async function executeMeasured(id, env) {
	const child = n8nSpawn(['execute', `--id=${id}`, '--rawOutput'], { env });
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk) => (stdout += chunk));
	child.stderr.on('data', (chunk) => (stderr += chunk));
	let peak = 0;
	const timer = setInterval(() => {
		peak = Math.max(peak, peakRss(child.pid) ?? 0);
	}, 20);
	const status = await new Promise((resolve) => child.once('close', (code) => resolve(code)));
	clearInterval(timer);
	if (!stdout.includes('{'))
		throw new Error(
			`n8n execute exited with ${status} and no JSON: ${stdout.slice(-1000)} ${stderr.slice(-2000)}`,
		);
	return { stdout, peakRssBytes: peak };
}

function parseRunOutput(stdout) {
	const start = stdout.startsWith('{') ? 0 : stdout.indexOf('\n{') + 1;
	const end = stdout.lastIndexOf('\n}');
	if (start <= 0 && !stdout.startsWith('{'))
		throw new Error(`no JSON in the output of n8n execute:\n${stdout.slice(-2000)}`);
	return JSON.parse(stdout.slice(start, end + 2));
}

/** From the first measured node's start to the last one's end, in n8n's own run data. */
function span(run, first, last) {
	const runData = run?.data?.resultData?.runData ?? {};
	const a = runData[first]?.[0];
	const b = runData[last]?.[0];
	if (!a || !b)
		throw new Error(
			`no run data for ${first} / ${last}: ${JSON.stringify(run?.data?.resultData?.error ?? {}).slice(0, 500)}`,
		);
	return b.startTime + b.executionTime - a.startTime;
}

function outputOf(run, nodeName) {
	return (run?.data?.resultData?.runData?.[nodeName]?.[0]?.data?.main?.[0] ?? []).map(
		(item) => item.json,
	);
}

async function control(origin, method, route, body, attempt = 0) {
	try {
		const response = await fetch(`${origin}/__sandbox/${route}`, {
			method,
			headers: { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return await response.json();
	} catch (error) {
		// A kept-alive connection the sandbox closed while `n8n execute` ran: once more, on a new one.
		if (attempt === 0) return await control(origin, method, route, body, 1);
		throw error;
	}
}

export async function runRealN8n({ origin, scenarios }) {
	if (!n8nIsInstalled()) {
		return { skipped: 'n8n is not installed in .n8n-local/ (run `npm start` once to install it)' };
	}
	const baseUrl = `${origin}/api/v1`;
	const home = path.join(LOCAL, 'bench-home');
	rmSync(home, { recursive: true, force: true });
	mkdirSync(home, { recursive: true });
	installPackage(home);
	const env = n8nEnv({ home, port: await freePort() });
	importCredential({ baseUrl, env });

	const results = [];
	const memoryEnv = n8nEnv({
		home,
		port: await freePort(),
		extra: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' },
	});
	for (const [index, scenario] of scenarios.entries()) {
		const id = `benchWorkflow${String(index).padStart(3, '0')}`;
		if (scenario.kind === 'memNode' || scenario.kind === 'memHttp') {
			const dir = memoryFiles(scenario.files, scenario.fileMb);
			importWorkflow(memoryWorkflow(id, scenario, baseUrl, dir), { env });
			await control(origin, 'POST', 'reset', {
				envelope: scenario.envelope,
				latencyMs: scenario.latencyMs,
				processingDelayMs: 10,
			});
			const { stdout, peakRssBytes } = await executeMeasured(id, memoryEnv);
			const run = parseRunOutput(stdout);
			const out = outputOf(run, 'Upload');
			const requests = await control(origin, 'GET', 'requests');
			const created = requests.filter(
				(r) => r.method === 'POST' && r.path === '/scans' && r.status === 201,
			).length;
			results.push({
				...scenario,
				peakRssMb: Math.round(peakRssBytes / 1024 / 1024),
				uploaded: created,
				items: out.length,
				wallMs: span(run, 'Upload', 'Upload'),
			});
			continue;
		}
		if (scenario.kind === 'returnAll') {
			importWorkflow(returnAllWorkflow(id), { env });
			await control(origin, 'POST', 'reset', { envelope: scenario.envelope, latencyMs: 0 });
			const { ids } = await control(origin, 'POST', 'scans', {
				count: scenario.scans,
				template_id: 2,
			});
			await control(origin, 'POST', 'options', { latencyMs: scenario.latencyMs });
			const run = parseRunOutput(
				n8nSync(['execute', `--id=${id}`, '--rawOutput'], { env, timeoutMs: 300_000 }).stdout,
			);
			const wallMs = span(run, 'Scan', 'Scan');
			const got = outputOf(run, 'Scan').map((json) => Number(json.id));
			const expected = [...ids].reverse();
			const pages = Math.ceil(scenario.scans / 25);
			results.push({
				...scenario,
				pages,
				wallMs,
				sequentialMs: pages * scenario.latencyMs,
				ratio: Math.round((wallMs / (pages * scenario.latencyMs)) * 100) / 100,
				correct: got.length === expected.length && got.every((v, i) => v === expected[i]),
			});
			continue;
		}
		if (scenario.kind === 'timeout') {
			importWorkflow(timeoutWorkflow(id, scenario), { env });
			await control(origin, 'POST', 'reset', {
				envelope: scenario.envelope,
				latencyMs: scenario.latencyMs,
			});
			await control(origin, 'POST', 'hold', { hold: true });
			await control(origin, 'POST', 'faults', {
				method: 'GET',
				path: '^/scans/\\d+$',
				kind: 'status',
				status: 429,
				headers: { 'Retry-After': '30' },
				times: 100,
			});
			const run = parseRunOutput(
				n8nSync(['execute', `--id=${id}`, '--rawOutput'], { env, timeoutMs: 300_000 }).stdout,
			);
			const wallMs = span(run, 'Scan', 'Scan');
			const [item] = outputOf(run, 'Scan');
			results.push({
				...scenario,
				wallMs,
				ratioToTimeout: Math.round((wallMs / (scenario.waitTimeoutS * 1000)) * 100) / 100,
				error: String(item?.error ?? ''),
			});
			continue;
		}
		const workflow =
			scenario.kind === 'node' ? nodeWorkflow(id, scenario) : diyWorkflow(id, scenario, baseUrl);
		importWorkflow(workflow, { env });
		await control(origin, 'POST', 'reset', {
			envelope: scenario.envelope,
			processingDelayMs: Math.round(scenario.processingMs / 2),
			latencyMs: scenario.latencyMs,
		});
		const exec = n8nSync(['execute', `--id=${id}`, '--rawOutput'], { env, timeoutMs: 300_000 });
		const run = parseRunOutput(exec.stdout);
		const last = scenario.kind === 'node' ? 'Scan' : 'Get';
		const first = scenario.kind === 'node' ? 'Scan' : 'Upload';
		const wallMs = span(run, first, last);
		const out = outputOf(run, last).map((json) =>
			json.data && json.data.id !== undefined ? json.data : json,
		);
		const requests = await control(origin, 'GET', 'requests');
		const gets = requests.filter((r) => r.method === 'GET').length;
		// How long after the service finished each scan the workflow held it.
		const delays = [];
		for (const scan of out) {
			const stored = await control(origin, 'GET', `scans/${scan.id}`);
			const handled = requests
				.filter((r) => r.method === 'GET' && r.path === `/scans/${scan.id}` && r.status === 200)
				.map((r) => r.atMs + scenario.latencyMs)
				.filter((at) => at >= stored.updatedAt);
			if (handled.length > 0) delays.push(Math.min(...handled) - stored.updatedAt);
		}
		delays.sort((a, b) => a - b);
		const inInputOrder =
			out.length === scenario.uploads &&
			out.every((scan, i) => scan.filename === `real-${i}.pdf` && scan.status === 'completed');
		results.push({
			...scenario,
			wallMs,
			ratioToProcessing: Math.round((wallMs / scenario.processingMs) * 100) / 100,
			getsPerDocument: Math.round((gets / scenario.uploads) * 100) / 100,
			deliveryP50Ms: delays.length ? Math.round(delays[Math.ceil(delays.length / 2) - 1]) : null,
			deliveryMaxMs: delays.length ? Math.round(delays[delays.length - 1]) : null,
			inInputOrder,
			...(scenario.kind === 'diy' ? { waitSeconds: WAIT_SECONDS } : {}),
		});
	}
	return { n8n: '1.123.81 (Node 24, .n8n-local)', results };
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const input = JSON.parse(process.argv[2] ?? '{}');
	runRealN8n(input).then(
		(result) => {
			process.stdout.write(`\n@@RESULT@@${JSON.stringify(result)}\n`);
			process.exit(0);
		},
		(error) => {
			process.stdout.write(
				`\n@@RESULT@@${JSON.stringify({ error: String(error?.stack ?? error) })}\n`,
			);
			process.exit(1);
		},
	);
}
