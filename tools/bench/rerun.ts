/**
 * Benchmark: a re-run of a batch with "If Already Uploaded" = "Return Existing Scan" against a
 * template with many older scans (issue 26, section 1): the listing requests the re-run pays,
 * right after the first run, an hour later, and a day later after other uploads to the template,
 * against the pages the template holds. Nothing is asserted; the counts are asserted in
 * test/node/upload-existing.test.ts on a smaller account.
 *
 *   npm run build && npm run bench                    # among the other figures
 *   npm run build && npm run bench -- rerun   # this figure alone
 *
 * RERUN_DOCUMENTS (default 200), RERUN_OLDER_SCANS (default 20000) and RERUN_BETWEEN (other
 * scans of the template made before the day-later re-run, default 1000) change the sizes.
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

const HOUR = 60 * 60 * 1000;
const PAGE_SIZE = 25;
/** The node version new workflows get: uploads carry the content fingerprint. */
const NODE_VERSION = 1.1;

export type RerunWhen = 'right after' | 'an hour later' | 'a day later';

export interface RerunFigure {
	envelope: 'data' | 'bare';
	when: RerunWhen;
	documents: number;
	olderScans: number;
	/** Scans of the template made between the first run and the re-run. */
	between: number;
	/** Pages the template's listing holds at the re-run. */
	pages: number;
	latencyMs: number;
	concurrency: number;
	/** GET /scans?template_id=… requests of the re-run. */
	templateListingRequests: number;
	/** GET /scans without a template: the hour's count before the first upload. */
	hourListingRequests: number;
	uploads: number;
	conflicts: number;
	creditsUsed: number;
	wallMs: number;
	correct: boolean;
}

async function rerunFigure(
	sandbox: SandboxProcess,
	options: {
		envelope: 'data' | 'bare';
		when: RerunWhen;
		documents: number;
		olderScans: number;
		between: number;
		latencyMs: number;
		concurrency: number;
	},
): Promise<RerunFigure> {
	const { envelope, when, documents, olderScans, latencyMs, concurrency } = options;
	const between = when === 'a day later' ? options.between : 0;
	const env = { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY };
	await sandbox.control('POST', 'reset', { envelope, latencyMs: 0, processingDelayMs: 10 });
	await sandbox.control('POST', 'scans', {
		count: olderScans,
		template_id: 1,
		age_ms: 2 * HOUR,
	});
	const files = Array.from({ length: documents }, (_, i) => pdfOfSize(256, `rerun-${when}-${i}`));
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
	const first = await runNode({ parameters, items, env, typeVersion: NODE_VERSION });
	if (first.error) throw first.error;
	if (when !== 'right after') await sandbox.control('POST', 'clock', { advanceMs: HOUR + 60_000 });
	if (when === 'a day later') {
		await sandbox.control('POST', 'scans', { count: between, template_id: 1 });
		await sandbox.control('POST', 'clock', { advanceMs: 23 * HOUR });
	}
	const creditsBefore = (await sandbox.control<{ used_scans: number }>('GET', 'account'))
		.used_scans;
	await sandbox.control('POST', 'options', { latencyMs });
	await sandbox.control('DELETE', 'requests');
	const started = performance.now();
	const rerun = await runNode({ parameters, items, env, typeVersion: NODE_VERSION });
	const wallMs = performance.now() - started;
	if (rerun.error) throw rerun.error;
	const requests = await sandbox.control<RequestEntry[]>('GET', 'requests');
	const creditsAfter = (await sandbox.control<{ used_scans: number }>('GET', 'account')).used_scans;
	const listings = requests.filter((r) => r.method === 'GET' && r.path === '/scans');
	const posts = requests.filter((r) => r.method === 'POST' && r.path === '/scans');
	const firstIds = first.output.map((item) => item.json.id);
	return {
		envelope,
		when,
		documents,
		olderScans,
		between,
		pages: Math.ceil((olderScans + documents + between) / PAGE_SIZE),
		latencyMs,
		concurrency,
		templateListingRequests: listings.filter((r) => r.query.template_id !== undefined).length,
		hourListingRequests: listings.filter((r) => r.query.template_id === undefined).length,
		uploads: posts.length,
		conflicts: posts.filter((r) => r.status === 409).length,
		creditsUsed: creditsAfter - creditsBefore,
		wallMs: Math.round(wallMs),
		correct:
			rerun.output.length === documents &&
			rerun.output.every((item, i) => item.json.id === firstIds[i]),
	};
}

export function printRerun(f: RerunFigure): void {
	console.log(
		`re-run ${f.when.padEnd(13)} (${f.envelope.padEnd(4)}), Return Existing Scan: ${f.documents} documents, ${f.olderScans} older scans` +
			`${f.between ? ` and ${f.between} made since` : ''} (${f.pages} pages): ` +
			`${f.templateListingRequests} template listing requests (${round(f.templateListingRequests / f.pages, 3)}x the pages), ` +
			`${f.hourListingRequests} for the hour's count; ${f.uploads} uploads, ${f.conflicts} answered 409, ` +
			`${f.creditsUsed} credits used; ${f.wallMs} ms at ${f.latencyMs} ms latency; ` +
			`output ${f.correct ? 'each item its own first-run scan' : 'WRONG'}`,
	);
}

/** The figures for every envelope and every moment; the hook tools/bench/bench.ts calls. */
export async function rerunFigures(
	sandbox: SandboxProcess,
	options: { envelopes: Array<'data' | 'bare'>; latencyMs: number; concurrency: number },
): Promise<RerunFigure[]> {
	const documents = Number(process.env.RERUN_DOCUMENTS ?? 200);
	const olderScans = Number(process.env.RERUN_OLDER_SCANS ?? 20_000);
	const between = Number(process.env.RERUN_BETWEEN ?? 1000);
	const figures: RerunFigure[] = [];
	for (const envelope of options.envelopes) {
		for (const when of ['right after', 'an hour later', 'a day later'] as const) {
			const figure = await rerunFigure(sandbox, {
				envelope,
				when,
				documents,
				olderScans,
				between,
				latencyMs: options.latencyMs,
				concurrency: options.concurrency,
			});
			printRerun(figure);
			figures.push(figure);
		}
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
