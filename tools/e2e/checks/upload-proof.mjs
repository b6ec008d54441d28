// Issue 24 in real n8n, with `n8n execute`: every upload can be found again as its file's scan,
// and a stop that is not a 429/402 names every scan it paid for.
// - A batch uploaded with the node's defaults (version 1.1: the content fingerprint in the stored
//   name), then re-run with "If Already Uploaded" = "Return Existing Scan": each item gets its own
//   first-run scan, nothing is uploaded again, no credit is used.
// - A batch whose first item's template is inactive (404) while the other uploads are in flight:
//   the execution fails, and its error's description names each scan the sandbox charged.
import { execute, importWorkflows } from './run-example.mjs';
import { nodeItems, sandboxOf } from './support.mjs';
import { uploadBatchWorkflow } from './upload-workflow.mjs';

const DOCUMENTS = 4;
/** The sandbox's seeded inactive template (docs/sandbox.md). */
const INACTIVE_TEMPLATE = 5;

/** Start → PDFs (`proof-<i>.pdf`, the same bytes on every run of a stamp) → Upload (version 1.1). */
function batchWorkflow(id, name, stamp, options, templateId) {
	const batch = { count: DOCUMENTS, stamp, prefix: 'proof' };
	return uploadBatchWorkflow(id, name, batch, { parameters: { options }, templateId });
}

export async function checkUploadProof(ctx) {
	const sandbox = sandboxOf(ctx);
	const stamp = `proof-${process.pid}-${Date.now()}`;
	const credits = async () => (await sandbox.api('/account')).body?.data?.used_scans;
	const posts = async () =>
		(await sandbox.requests()).filter((r) => r.method === 'POST' && r.path === '/scans');

	// 1. Defaults, then the re-run with "Return Existing Scan" (all documents to template 1).
	const first = batchWorkflow('docscanProof01', 'e2e: upload with defaults', stamp, {});
	const again = batchWorkflow('docscanProof02', 'e2e: re-run, Return Existing Scan', stamp, {
		onDuplicate: 'returnExisting',
	});
	await importWorkflows(ctx, first, again);
	const run1 = await execute(ctx, first.id);
	const out1 = nodeItems(run1.run, 'Upload');
	const fingerprinted = out1.every((o) =>
		/^proof-\d\.ds-[0-9a-f]{12}\.pdf$/.test(String(o.filename)),
	);
	ctx.check(
		'upload with the defaults (node version 1.1): every scan stored with the content fingerprint',
		run1.ok && out1.length === DOCUMENTS && fingerprinted,
		`${run1.detail}; ${out1.map((o) => o.filename).join(', ')}`,
	);
	const creditsBefore = await credits();
	await sandbox.clearRequests();
	const run2 = await execute(ctx, again.id);
	const out2 = nodeItems(run2.run, 'Upload');
	const sent = await posts();
	ctx.check(
		'the batch re-run with "Return Existing Scan": each item its own first-run scan, nothing sent again, no credit',
		run2.ok &&
			out2.length === DOCUMENTS &&
			out2.every((o, i) => o.id !== undefined && o.id === out1[i]?.id) &&
			sent.length === 0 &&
			(await credits()) === creditsBefore,
		`${run2.detail}; ids ${out2.map((o) => o.id).join(', ')} vs ${out1.map((o) => o.id).join(', ')}; ${sent.length} upload(s)`,
	);

	// 2. A stop that is not a 429/402: item 0's template is inactive, the others go to template 1.
	const stop = batchWorkflow(
		'docscanProof03',
		'e2e: a 404 stop names the scans paid for',
		`${stamp}-stop`,
		{ concurrency: 5 },
		`={{ $json.i === 0 ? ${INACTIVE_TEMPLATE} : 1 }}`,
	);
	await importWorkflows(ctx, stop);
	await sandbox.clearRequests();
	const run3 = await execute(ctx, stop.id);
	const error =
		run3.run?.data?.resultData?.error ?? run3.run?.data?.resultData?.runData?.Upload?.[0]?.error;
	const charged = [];
	for (const post of await posts()) if (post.status === 201) charged.push(post);
	const listed = await sandbox.api('/scans?template_id=1&page=1');
	const scans = (listed.body?.data ?? listed.body ?? []).filter((s) =>
		String(s.filename).startsWith('proof-'),
	);
	const description = String(error?.description ?? '');
	const named = scans
		.slice(0, charged.length)
		.every((s) => description.includes(`→ scan ${s.id} (item `));
	ctx.check(
		'a batch stopped by a 404 (not a 429/402): the error names every scan the execution paid for',
		!run3.ok &&
			charged.length === DOCUMENTS - 1 &&
			named &&
			/Not found/.test(String(error?.message)),
		`${run3.detail}; ${charged.length} charged; description: ${description.slice(0, 400)}`,
	);
}
