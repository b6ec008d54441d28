// Issue 32 §2 and §5 in real n8n, with `n8n execute`:
// - the service lists brief scans (sandbox option listedScans 'brief'): a re-run with "Return
//   Existing Scan" and Wait for Completion outputs each document's scan as GET /scans/{id} gives
//   it (with extracted_data), sending nothing;
// - 40 documents fit, and every upload after the node's first is answered 429, as when another
//   client fills the hour, 300 ms after it arrived (with and without Retry-After): with Continue
//   On Fail, no POST arrives after the first 429 was answered, and every item is paired (1 scan,
//   39 "not uploaded").
import { execute, importWorkflows } from './run-example.mjs';
import { nodeItems, sandboxOf } from './support.mjs';
import { uploadBatchWorkflow } from './upload-workflow.mjs';

const WAIT = { pollInterval: 0.2, maxPollInterval: 0.5, waitTimeout: 60 };

/** §2: final scans found through a brief listing are output whole. */
async function checkWholeScans(ctx, sandbox) {
	const stamp = `whole-${process.pid}-${Date.now()}`;
	const batch = { count: 3, stamp, prefix: 'doc' };
	const first = uploadBatchWorkflow('docscanWhole001', 'e2e: upload and wait', batch, {
		parameters: { waitForCompletion: true, options: WAIT },
	});
	const again = uploadBatchWorkflow('docscanWhole002', 'e2e: re-run, brief listing', batch, {
		parameters: { waitForCompletion: true, options: { ...WAIT, onDuplicate: 'returnExisting' } },
	});
	await importWorkflows(ctx, first, again);
	const run1 = await execute(ctx, first.id);
	const out1 = nodeItems(run1.run, 'Upload');
	await sandbox.control('POST', '/options', { listedScans: 'brief' });
	try {
		await sandbox.clearRequests();
		const run2 = await execute(ctx, again.id);
		const out2 = nodeItems(run2.run, 'Upload');
		const posts = (await sandbox.requests()).filter((r) => r.method === 'POST');
		ctx.check(
			'a re-run with "Return Existing Scan" and Wait for Completion over a brief listing: each document its own scan, whole (extracted_data), nothing sent',
			run1.ok &&
				run2.ok &&
				out2.length === 3 &&
				out2.every((o, i) => o.id === out1[i]?.id && o.status === 'completed') &&
				out2.every((o) => o.extracted_data && typeof o.extracted_data === 'object') &&
				posts.length === 0,
			`${run2.detail}; ${out2.map((o) => `${o.id} ${o.status} ${o.extracted_data ? 'with' : 'without'} extracted_data`).join(', ')}; ${posts.length} POST(s)`,
		);
	} finally {
		await sandbox.control('POST', '/options', { listedScans: 'full' });
	}
}

/** §5: no new upload after the first 429, with and without Retry-After. */
async function checkStopAt429(ctx, sandbox) {
	const documents = 40;
	for (const retryAfter of [false, true]) {
		const stamp = `stop-${retryAfter}-${process.pid}-${Date.now()}`;
		const workflow = uploadBatchWorkflow(
			`docscanStop429${retryAfter ? 'R' : 'N'}`,
			`e2e: a 429 stops the batch (Retry-After ${retryAfter ? 'sent' : 'not sent'})`,
			{ count: documents, stamp, prefix: 'doc' },
			{ onError: 'continueRegularOutput' },
		);
		await importWorkflows(ctx, workflow);
		// Every POST but the first is answered 429 (as when another client filled the hour), 300 ms
		// after it arrived: one the node sends after it heard of the first 429 arrives after it.
		await sandbox.control('POST', '/faults', {
			method: 'POST',
			path: '^/scans$',
			kind: 'status',
			status: 429,
			headers: retryAfter ? { 'Retry-After': '2' } : {},
			latencyMs: 300,
			after: 1,
			times: documents,
		});
		await sandbox.clearRequests();
		try {
			const run = await execute(ctx, workflow.id);
			const out = nodeItems(run.run, 'Upload');
			const posts = (await sandbox.requests()).filter((r) => r.method === 'POST');
			const first429 = posts
				.filter((r) => r.status === 429)
				.sort((a, b) => a.doneAtMs - b.doneAtMs)[0];
			const after = first429 ? posts.filter((r) => r.atMs > first429.doneAtMs).length : NaN;
			ctx.check(
				`a 429 stops the batch (Retry-After ${retryAfter ? 'sent' : 'not sent'}): POSTs after the first 429: 0; ${documents} items paired, 1 scan`,
				run.ok &&
					after === 0 &&
					out.length === documents &&
					out.filter((o) => o.status === 'uploaded').length === 1 &&
					out.filter((o) => o.notUploaded === true).length === documents - 1,
				`${run.detail}; ${posts.length} POSTs, ${after} after the first 429; ${out.length} items`,
			);
		} finally {
			await sandbox.control('DELETE', '/faults');
		}
	}
}

export async function checkUploadAnswers(ctx) {
	const sandbox = sandboxOf(ctx);
	await checkWholeScans(ctx, sandbox);
	await checkStopAt429(ctx, sandbox);
}
