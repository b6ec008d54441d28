/**
 * Benchmark: a re-run of a batch with "If Already Uploaded" = "Return Existing Scan" against a
 * template with many older scans (issue 16, section 2). Every upload is answered 409; the
 * figure is the listing requests (one listing per execution, against the page count and
 * against one listing per document) and the wall time, against pages × latency read 8 side by
 * side. Nothing is asserted.
 *
 *   npm run build && npm run bench                    # among the other figures
 *   npm run build && npm run bench -- rerun   # this figure alone
 *
 * RERUN_DOCUMENTS (default 200) and RERUN_OLDER_SCANS (default 20000) change the sizes.
 */
import { DEFAULT_API_KEY } from '../../sandbox/server';
import { binaryItem } from '../../test/support/fixtures';
import { runNode } from '../../test/support/run-node';
import {
	setup as useTemporaryUserFolder,
	teardown as removeTemporaryUserFolder,
} from '../../test/support/user-folder';
import { round } from './batch';
import type { RequestEntry, SandboxProcess } from './sandbox-process';
import { pdfOfSize, startSandboxProcess } from './sandbox-process';

export interface RerunFigure {
	envelope: 'data' | 'bare';
	documents: number;
	olderScans: number;
	pages: number;
	latencyMs: number;
	concurrency: number;
	listingRequests: number;
	/** What one listing per document would have cost. */
	perDocumentListingRequests: number;
	uploads: number;
	conflicts: number;
	creditsUsed: number;
	wallMs: number;
	/** Pages × latency / 8 (the pages read side by side) + uploads × latency / concurrency. */
	idealMs: number;
	ratio: number;
	correct: boolean;
}

const PAGE_SIZE = 25;
const PAGES_SIDE_BY_SIDE = 8;

export async function rerunFigure(
	sandbox: SandboxProcess,
	options: {
		envelope: 'data' | 'bare';
		documents: number;
		olderScans: number;
		latencyMs: number;
		concurrency: number;
	},
): Promise<RerunFigure> {
	const { envelope, documents, olderScans, latencyMs, concurrency } = options;
	const env = { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY };
	await sandbox.control('POST', 'reset', {
		envelope,
		latencyMs: 0,
		processingDelayMs: 10,
		rateLimitPerHour: 10_000,
	});
	await sandbox.control('POST', 'scans', {
		count: olderScans,
		template_id: 1,
		age_ms: 2 * 60 * 60 * 1000,
	});
	const files = Array.from({ length: documents }, (_, i) => pdfOfSize(256, `rerun-${i}`));
	const items = files.map((file, i) =>
		binaryItem(file, `Invoice-${String(i).padStart(4, '0')}.pdf`, 'application/pdf'),
	);
	const parameters = {
		resource: 'scan',
		operation: 'upload',
		templateId: { __rl: true, mode: 'id', value: '1' },
		binaryPropertyName: 'data',
		options: { onDuplicate: 'returnExisting', concurrency },
	};
	const first = await runNode({ parameters, items, env });
	if (first.error) throw first.error;
	const creditsBefore = (await sandbox.control<{ used_scans: number }>('GET', 'account'))
		.used_scans;

	// The re-run comes an hour later: uploads count against the hourly limit before the service
	// answers 409, so a re-run within the same hour would be held back by the node's limit check.
	await sandbox.control('POST', 'clock', { advanceMs: 61 * 60 * 1000 });
	await sandbox.control('POST', 'options', { latencyMs });
	await sandbox.control('DELETE', 'requests');
	const started = performance.now();
	const rerun = await runNode({ parameters, items, env });
	const wallMs = performance.now() - started;
	if (rerun.error) throw rerun.error;
	const requests = await sandbox.control<RequestEntry[]>('GET', 'requests');
	const creditsAfter = (await sandbox.control<{ used_scans: number }>('GET', 'account')).used_scans;
	const pages = Math.ceil((olderScans + documents) / PAGE_SIZE);
	const posts = requests.filter((r) => r.method === 'POST' && r.path === '/scans');
	const idealMs =
		Math.ceil(pages / PAGES_SIDE_BY_SIDE) * latencyMs +
		Math.ceil(documents / concurrency) * latencyMs;
	const firstIds = first.output.map((item) => item.json.id);
	return {
		envelope,
		documents,
		olderScans,
		pages,
		latencyMs,
		concurrency,
		listingRequests: requests.filter((r) => r.method === 'GET' && r.path === '/scans').length,
		perDocumentListingRequests: documents * pages,
		uploads: posts.length,
		conflicts: posts.filter((r) => r.status === 409).length,
		creditsUsed: creditsAfter - creditsBefore,
		wallMs: Math.round(wallMs),
		idealMs,
		ratio: round(wallMs / idealMs),
		correct:
			rerun.output.length === documents &&
			rerun.output.every((item, i) => item.json.id === firstIds[i]),
	};
}

export function printRerun(f: RerunFigure): void {
	console.log(
		`re-run, Return Existing Scan: ${f.documents} documents against ${f.olderScans} older scans (${f.pages} pages), ${f.envelope.padEnd(4)}: ` +
			`${f.listingRequests} listing requests = ${round(f.listingRequests / f.pages, 3)}x the pages (one listing per document: ${f.perDocumentListingRequests}); ` +
			`${f.uploads} uploads, ${f.conflicts} answered 409, ${f.creditsUsed} credits used; ${f.wallMs} ms = ${f.ratio}x (pages / 8 + uploads / concurrency) x latency (${f.idealMs} ms); ` +
			`output ${f.correct ? 'each item its own first-run scan' : 'WRONG'}`,
	);
}

/** The figure for every envelope; the hook tools/bench/bench.ts calls. */
export async function rerunFigures(
	sandbox: SandboxProcess,
	options: { envelopes: Array<'data' | 'bare'>; latencyMs: number; concurrency: number },
): Promise<RerunFigure[]> {
	const documents = Number(process.env.RERUN_DOCUMENTS ?? 200);
	const olderScans = Number(process.env.RERUN_OLDER_SCANS ?? 20_000);
	const figures: RerunFigure[] = [];
	for (const envelope of options.envelopes) {
		const figure = await rerunFigure(sandbox, {
			envelope,
			documents,
			olderScans,
			latencyMs: options.latencyMs,
			concurrency: options.concurrency,
		});
		printRerun(figure);
		figures.push(figure);
	}
	return figures;
}

/** This figure alone (`npm run bench -- rerun`): both envelopes, RERUN_LATENCY_MS (default 50). */
export async function main(): Promise<void> {
	// n8n-core writes its settings into N8N_USER_FOLDER: a temporary one, not the user's home.
	useTemporaryUserFolder();
	const sandbox = await startSandboxProcess();
	try {
		await rerunFigures(sandbox, {
			envelopes: ['data', 'bare'],
			latencyMs: Number(process.env.RERUN_LATENCY_MS ?? 50),
			concurrency: 5,
		});
	} finally {
		sandbox.stop();
		removeTemporaryUserFolder();
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
