/** Batch uploads with waiting, run through n8n-core's engine (the test harness) against the sandbox. */
import { DEFAULT_API_KEY } from '../../sandbox/server';
import { binaryItem } from '../../test/support/fixtures';
import { runNode } from '../../test/support/run-node';
import type { RequestEntry, SandboxProcess } from './sandbox-process';
import { deliveryDelays, pdfOfSize, percentile } from './sandbox-process';

export interface BatchFigure {
	envelope: 'data' | 'bare';
	uploads: number;
	/** The option as set; "default" when the node's default applied. */
	concurrency: number | 'default';
	processingMs: number;
	latencyMs: number;
	/** Uploads alone (no waiting), same files, same run: the upload part of the bound. */
	uploadOnlyMs: number;
	wallMs: number;
	boundMs: number;
	ratioToBound: number;
	ratioToProcessing: number;
	getsPerDocument: number;
	deliveryP50Ms: number;
	deliveryMaxMs: number;
	inInputOrder: boolean;
}

const uploadParameters = (wait: boolean, concurrency: number | undefined) => ({
	resource: 'scan',
	operation: 'upload',
	templateId: { __rl: true, mode: 'id', value: '1' },
	binaryPropertyName: 'data',
	waitForCompletion: wait,
	options: concurrency === undefined ? {} : { concurrency },
});

function items(count: number, label: string) {
	return Array.from({ length: count }, (_, i) =>
		binaryItem(pdfOfSize(2048, `${label}-${i}`), `${label}-${i}.pdf`, 'application/pdf'),
	);
}

/**
 * One figure: the sandbox set to `processingMs` (two steps of half each) and `latencyMs`;
 * first the uploads alone, then the same number with Wait for Completion.
 */
export async function batchFigure(
	sandbox: SandboxProcess,
	options: {
		envelope: 'data' | 'bare';
		uploads: number;
		/** Unset: the node's default. */
		concurrency?: number;
		processingMs: number;
		latencyMs: number;
	},
): Promise<BatchFigure> {
	const { envelope, uploads, concurrency, processingMs, latencyMs } = options;
	const env = { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY };
	await sandbox.control('POST', 'reset', {
		envelope,
		processingDelayMs: Math.round(processingMs / 2),
		latencyMs,
	});

	let started = performance.now();
	const plain = await runNode({
		parameters: uploadParameters(false, concurrency),
		items: items(uploads, 'plain'),
		env,
	});
	const uploadOnlyMs = performance.now() - started;
	if (plain.error) throw plain.error;

	// The uploads alone filled the rolling hour: the sandbox's virtual clock moves an hour on.
	await sandbox.control('POST', 'clock', { advanceMs: 60 * 60 * 1000 });
	await sandbox.control('DELETE', 'requests');
	const input = items(uploads, 'wait');
	started = performance.now();
	const waited = await runNode({
		parameters: uploadParameters(true, concurrency),
		items: input,
		env,
	});
	const wallMs = performance.now() - started;
	if (waited.error) throw waited.error;

	const out = waited.output.map((item) => item.json);
	const inInputOrder =
		out.length === uploads &&
		out.every((scan, i) => scan.filename === `wait-${i}.pdf` && scan.status === 'completed');
	const requests = await sandbox.control<RequestEntry[]>('GET', 'requests');
	const gets = requests.filter((r) => r.method === 'GET').length;
	const delays = await deliveryDelays(
		sandbox,
		out.map((scan) => Number(scan.id)),
		latencyMs,
	);
	const boundMs = processingMs + uploadOnlyMs;
	return {
		envelope,
		uploads,
		concurrency: concurrency ?? 'default',
		processingMs,
		latencyMs,
		uploadOnlyMs: Math.round(uploadOnlyMs),
		wallMs: Math.round(wallMs),
		boundMs: Math.round(boundMs),
		ratioToBound: round(wallMs / boundMs),
		ratioToProcessing: round(wallMs / processingMs),
		getsPerDocument: round(gets / uploads),
		deliveryP50Ms: Math.round(percentile(delays, 50)),
		deliveryMaxMs: Math.round(Math.max(...delays)),
		inInputOrder,
	};
}

export function round(value: number, digits = 2): number {
	const factor = 10 ** digits;
	return Math.round(value * factor) / factor;
}

export interface PagingFigure {
	envelope: 'data' | 'bare';
	scans: number;
	pages: number;
	latencyMs: number;
	wallMs: number;
	sequentialMs: number;
	ratio: number;
	pageRequests: number;
	correct: boolean;
}

/** Return All over `scans` seeded scans at `latencyMs`, against pages × latency. */
export async function pagingFigure(
	sandbox: SandboxProcess,
	options: { envelope: 'data' | 'bare'; scans: number; latencyMs: number },
): Promise<PagingFigure> {
	const { envelope, scans, latencyMs } = options;
	const env = { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY };
	await sandbox.control('POST', 'reset', { envelope, latencyMs: 0 });
	const { ids } = await sandbox.control<{ ids: number[] }>('POST', 'scans', {
		count: scans,
		template_id: 2,
	});
	await sandbox.control('POST', 'options', { latencyMs });
	await sandbox.control('DELETE', 'requests');
	const started = performance.now();
	const result = await runNode({
		parameters: { resource: 'scan', operation: 'getAll', returnAll: true },
		env,
	});
	const wallMs = performance.now() - started;
	if (result.error) throw result.error;
	const requests = await sandbox.control<RequestEntry[]>('GET', 'requests');
	const pageRequests = requests.filter((r) => r.path === '/scans').length;
	const pages = Math.ceil(scans / 25);
	const got = result.output.map((item) => Number(item.json.id));
	const expected = [...ids].reverse();
	const sequentialMs = pages * latencyMs;
	return {
		envelope,
		scans,
		pages,
		latencyMs,
		wallMs: Math.round(wallMs),
		sequentialMs,
		ratio: round(wallMs / sequentialMs),
		pageRequests,
		correct: got.length === expected.length && got.every((id, i) => id === expected[i]),
	};
}
