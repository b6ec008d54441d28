// The example "Hourly batch" (examples/hourly-batch-from-folder.json) over the hourly limit, in real n8n:
// run 1 with 3 of 200 hourly uploads left uploads 3 of 6 inbox PDFs and defers 3 ("not uploaded",
// retryAfter); once the other client's uploads have left the hour, run 2 (the next hourly run)
// uploads the 3 deferred ones, the 3 others come back as existing scans at no credit, and only the
// 3 new scans reach "Process the scan". The Schedule Trigger is replaced by a Manual Trigger of the
// same name (`n8n execute` starts only from one); every other node is the example's own.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { invoicePdf } from '../../n8n/sample-invoices.mjs';
import { execute, importManualCopy } from './run-example.mjs';
import { nodeItems, sandboxApi, sandboxOf, unwrap, waitFor } from './support.mjs';

const HOUR = 3_600_000;
const DOCUMENTS = 6;
const LEFT = 3;

/** The sandbox's clock (it can be moved on), in epoch ms. */
async function sandboxNow(sandbox) {
	const response = await sandbox.control('POST', '/clock', { advanceMs: 0 });
	return Date.parse(response.body?.now);
}

/** Uploads of the account in the last hour of the sandbox's clock, from the scans listing (newest first). */
async function uploadsThisHour(api, sandbox) {
	const now = await sandboxNow(sandbox);
	let count = 0;
	for (let page = 1; page < 100; page++) {
		const items = unwrap((await api(`/scans?page=${page}`)).body) ?? [];
		const recent = items.filter((s) => Date.parse(s.created_at) > now - HOUR);
		count += recent.length;
		if (items.length < 25 || recent.length === 0) return count;
	}
	return count;
}

export async function hourlyBatch(ctx) {
	const { example, workflow } = await importManualCopy(ctx, 'hourly-batch-from-folder.json');

	const inbox = path.join(ctx.filesDir, 'inbox');
	rmSync(inbox, { recursive: true, force: true });
	mkdirSync(inbox, { recursive: true });
	const stamp = `${process.pid}-${Date.now()}`;
	const names = Array.from({ length: DOCUMENTS }, (_, i) => `batch-${i}.pdf`);
	names.forEach((name, i) =>
		writeFileSync(path.join(inbox, name), invoicePdf([`Hourly batch ${stamp}`, `Document ${i}`])),
	);

	// Another client of the account used all but LEFT of the hour's 200 uploads, 57-58 minutes ago.
	const api = sandboxApi(ctx.sandboxBaseUrl, ctx.apiKey);
	const sandbox = sandboxOf(ctx);
	const fill = 200 - LEFT - (await uploadsThisHour(api, sandbox));
	const seeded = await sandbox.control('POST', '/uploads', {
		count: fill,
		oldest_age_ms: 58 * 60_000,
		newest_age_ms: 57 * 60_000,
	});
	if (
		!ctx.check(
			"hourly batch: the sandbox seeds another client's uploads of the hour",
			seeded.status === 201,
			`${fill} uploads, HTTP ${seeded.status}`,
		)
	)
		return;

	const first = await execute(ctx, workflow.id);
	const out1 = nodeItems(first.run, 'Upload within the hourly budget');
	const processed1 = nodeItems(first.run, 'Process the scan (replace me)');
	const deferred = out1.filter(
		(o) => o.notUploaded === true && typeof o.retryAfter === 'string' && o.id === undefined,
	);
	ctx.check(
		`example "${example.name}" over the hourly limit: ${LEFT} of ${DOCUMENTS} uploaded, the others "not uploaded" with retryAfter`,
		first.ok &&
			out1.length === DOCUMENTS &&
			out1.filter((o) => o.id !== undefined).length === LEFT &&
			deferred.length === DOCUMENTS - LEFT &&
			processed1.length === LEFT,
		`${first.detail}; ${out1.length} item(s), ${deferred.length} deferred (retryAfter ${deferred[0]?.retryAfter}), ${processed1.length} processed`,
	);

	// The next hourly run, once the other client's uploads have left the rolling hour: the
	// sandbox's clock moves 3 minutes on (no real waiting; well inside the trigger's replay tolerance).
	await sandbox.control('POST', '/clock', { advanceMs: 3 * 60_000 });
	const room = await waitFor(async () => (await uploadsThisHour(api, sandbox)) <= 200 - DOCUMENTS, {
		timeoutMs: 30_000,
		intervalMs: 1_000,
	});
	if (
		!ctx.check(
			"hourly batch: the other client's uploads leave the rolling hour",
			Boolean(room),
			`${await uploadsThisHour(api, sandbox)} uploads in the hour`,
		)
	)
		return;
	const second = await execute(ctx, workflow.id);
	const out2 = nodeItems(second.run, 'Upload within the hourly budget');
	const processed2 = nodeItems(second.run, 'Process the scan (replace me)');
	// With "Return Existing Scan" the node uploads `batch-3.pdf` as `batch-3.ds-<fingerprint>.pdf`.
	const all = new Set(
		[...processed1, ...processed2].map((o) =>
			String(o.filename).replace(/\.ds-[0-9a-f]{12}(\.[^.]+)$/, '$1'),
		),
	);
	ctx.check(
		`example "${example.name}", next run: the deferred documents are uploaded, the others come back as existing scans, each scan processed once`,
		second.ok &&
			out2.length === DOCUMENTS &&
			out2.every((o) => o.id !== undefined && !o.error) &&
			processed2.length === DOCUMENTS - LEFT &&
			names.every((name) => all.has(name)),
		`${second.detail}; ${out2.filter((o) => o.id !== undefined).length} scan(s), ${processed2.length} processed (${processed2.map((o) => o.filename).join(', ')})`,
	);
}
