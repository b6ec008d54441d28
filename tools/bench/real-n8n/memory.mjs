// Upload memory in a real n8n, measured from outside the process the same way for both nodes:
// the increase of peak RSS during the upload step alone. Linux only (/proc).
//
// Each workflow (Read/Write Files from Disk → "Upload") runs in its own `n8n execute` process in
// filesystem binary mode with n8n's debug log on. This process reads the log as it comes: at
// `Running node "Upload" started` it resets the process's peak (writes "5" to
// /proc/<pid>/clear_refs, so VmHWM starts again from the current RSS) and notes the RSS; at
// `Running node "Upload" finished` it reads VmHWM. The figure is VmHWM - that RSS. n8n writes
// the line before it runs the node; the pipe's delay (well under a millisecond on an idle
// machine, a few under load) is the same for both nodes. Reading the files, n8n's boot and the
// execution's end are not counted.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { FILES_DIR, n8nSpawn } from '../../n8n/local.mjs';
import { STEP_START, memoryWorkflow } from './workflows.mjs';
import { control, median, parseRunOutput, round } from './run.mjs';
import { importWorkflow } from '../../n8n/local.mjs';

const MEMORY_DIR = path.join(FILES_DIR, 'bench-memory');
const KB = 1024;
const MB = 1024 * 1024;

/** `files` distinct PDFs of `fileMb` MB each, written once (kept for later runs; ignored folder). */
export function memoryFiles(files, fileMb) {
	const dir = path.join(MEMORY_DIR, `${files}x${fileMb}mb`);
	const size = Math.round(fileMb * MB);
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

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM); undefined once the process is gone. */
function statusBytes(pid, field) {
	try {
		const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(
			readFileSync(`/proc/${pid}/status`, 'utf8'),
		);
		return match ? Number(match[1]) * KB : undefined;
	} catch {
		return undefined;
	}
}

const LOG_TIME = /^(\d{4}-\d\d-\d\dT[\d:.]+Z)/;

/**
 * Runs workflow `id` and measures its step that starts at node `stepStart` and lasts to the end
 * of the workflow: { increaseBytes, startRssBytes, peakBytes, stepMs, stdout }. Throws when the
 * step's start or the workflow's end was not seen.
 */
export async function measureStep(id, env, stepStart) {
	const child = n8nSpawn(['execute', `--id=${id}`, '--rawOutput'], {
		env: { ...env, N8N_LOG_LEVEL: 'debug', N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' },
	});
	let stdout = '';
	let stderr = '';
	let pending = '';
	let startRss = NaN;
	let peak = NaN;
	let startedAt = NaN;
	let finishedAt = NaN;
	const onLine = (line) => {
		if (Number.isNaN(startRss) && line.includes(`Running node "${stepStart}" started`)) {
			writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
			startRss = statusBytes(child.pid, 'VmRSS') ?? NaN;
			startedAt = Date.parse(LOG_TIME.exec(line)?.[1] ?? '');
		} else if (
			!Number.isNaN(startRss) &&
			Number.isNaN(peak) &&
			line.includes('Workflow execution finished')
		) {
			peak = statusBytes(child.pid, 'VmHWM') ?? NaN;
			finishedAt = Date.parse(LOG_TIME.exec(line)?.[1] ?? '');
		}
	};
	child.stdout.setEncoding('utf8');
	child.stdout.on('data', (chunk) => {
		stdout += chunk;
		const lines = (pending + chunk).split('\n');
		pending = lines.pop();
		lines.forEach(onLine);
	});
	child.stderr.on('data', (chunk) => (stderr += chunk));
	const status = await new Promise((resolve) => child.once('close', (code) => resolve(code)));
	if (Number.isNaN(startRss) || Number.isNaN(peak))
		throw new Error(
			`the step from "${stepStart}" to the workflow's end was not seen (n8n execute exited with ${status}): ${stdout.slice(-1500)} ${stderr.slice(-1500)}`,
		);
	return {
		increaseBytes: peak - startRss,
		startRssBytes: startRss,
		peakBytes: peak,
		stepMs: finishedAt - startedAt,
		stdout,
	};
}

/** The kinds measured side by side; the ratio that counts is the node's against memHttpLoop. */
export const MEMORY_KINDS = ['memNode', 'memHttpLoop', 'memHttpBatching'];
/** The HTTP Request node's own Batching option holds every file: one process shows it. */
const CONTEXT_KINDS = new Set(['memHttpBatching']);

/**
 * The upload step of our node (Concurrency `concurrency`) and of the HTTP Request node in
 * batches of `concurrency` (Loop Over Items; and the node's own Batching option), `processes`
 * times each (the Batching option once), taking turns; medians, and the node's median over each
 * HTTP Request median.
 */
export async function memoryFigure({ origin, baseUrl, env, scenario, workflowId }) {
	const { files, fileMb, concurrency, processes = 5 } = scenario;
	const kinds = scenario.kinds ?? MEMORY_KINDS;
	const dir = memoryFiles(files, fileMb);
	const ids = {};
	for (const [index, kind] of kinds.entries()) {
		ids[kind] = `${workflowId}m${index}`;
		importWorkflow(memoryWorkflow(ids[kind], { kind, concurrency }, baseUrl, dir), { env });
	}
	const runs = Object.fromEntries(kinds.map((kind) => [kind, []]));
	for (let i = 0; i < processes; i++) {
		for (const kind of kinds) {
			if (i > 0 && CONTEXT_KINDS.has(kind)) continue;
			await control(origin, 'POST', 'reset', {
				envelope: scenario.envelope,
				latencyMs: scenario.latencyMs,
				processingDelayMs: 10,
			});
			const measured = await measureStep(ids[kind], env, STEP_START[kind]);
			const run = parseRunOutput(measured.stdout);
			const requests = await control(origin, 'GET', 'requests');
			runs[kind].push({
				increaseMb: round(measured.increaseBytes / MB, 1),
				startRssMb: round(measured.startRssBytes / MB, 1),
				peakRssMb: round(measured.peakBytes / MB, 1),
				uploaded: requests.filter(
					(r) => r.method === 'POST' && r.path === '/scans' && r.status === 201,
				).length,
				succeeded: run?.data?.resultData?.error === undefined,
				stepMs: measured.stepMs,
			});
		}
	}
	const medians = Object.fromEntries(
		kinds.map((kind) => [kind, median(runs[kind].map((r) => r.increaseMb))]),
	);
	return {
		kind: 'memory',
		files,
		fileMb,
		concurrency,
		processes,
		increaseMb: medians,
		ratios: Object.fromEntries(
			kinds.filter((k) => k !== 'memNode').map((k) => [k, round(medians.memNode / medians[k])]),
		),
		allUploaded: Object.values(runs)
			.flat()
			.every((r) => r.uploaded === files && r.succeeded),
		runs,
	};
}
