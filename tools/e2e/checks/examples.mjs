// Every workflow in examples/ runs in the e2e, on every n8n line (issue 9, "Every example is a test").
//
// Two phases, because `n8n execute` (CLI) and `n8n start` (server) cannot share the database:
//   checkExamplesCli(ctx)    before `n8n start`: examples with a manual start, run by `n8n execute`;
//   checkExamplesServer(ctx) with `n8n start` up: the trigger examples, activated and fed events.
// EXAMPLE_CHECKS names the check of every file; a file in examples/ without one fails the e2e.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { exampleFiles, exampleId, localExample, n8nSync } from '../../n8n/local.mjs';
import { SAMPLE_INVOICES } from '../../n8n/sample-invoices.mjs';
import {
	n8nRest,
	nodeItems,
	sandboxApi,
	setWorkflowActive,
	settle,
	unwrap,
	waitFor,
	sandboxOf,
	webhooksAt,
} from './support.mjs';
import { hourlyBatch } from './hourly-batch.mjs';
import { execute, importManualCopy } from './run-example.mjs';
import { checkWebhookAnswers } from './webhook-answers.mjs';
import { checkRepeatedDeliveries } from './repeated-delivery.mjs';
import { askAboutYourScans } from './agent-example.mjs';
import { firstScan } from './first-scan.mjs';

/** Runs a stored workflow with `n8n execute --rawOutput`; returns { run, error, detail }. */

// ---- daily-credit-check.json: Schedule Trigger -> Account: Get -> If -> No Op --------------------
// `n8n execute` starts only from a Manual Trigger: the copy run here has "Every morning" as a
// Manual Trigger of the same name; every other node is the example's own.
async function dailyCreditCheck(ctx) {
	const { example, workflow } = await importManualCopy(ctx, 'daily-credit-check.json');
	const api = sandboxApi(ctx.sandboxBaseUrl, ctx.apiKey);
	const remaining = unwrap((await api('/account')).body)?.remaining_scans; // Account: Get spends nothing
	const { run, ok, detail } = await execute(ctx, workflow.id);
	const balance = nodeItems(run, 'Scan balance');
	const low = remaining < 100;
	const topUp = nodeItems(run, 'Ask for a top-up (replace me)');
	ctx.check(
		`example "${example.name}" runs: balance read, the If branch matches the balance`,
		ok &&
			balance.length === 1 &&
			balance[0].remaining_scans === remaining &&
			topUp.length === (low ? 1 : 0),
		`${detail}; remaining_scans ${balance[0]?.remaining_scans} (sandbox ${remaining}), top-up branch ${topUp.length} item(s)`,
	);
}

// ---- invoice-line-items-to-erp.json: read /data/invoices/*.pdf -> upload and wait -> rows ---------
async function invoiceLineItems(ctx) {
	const file = 'invoice-line-items-to-erp.json';
	const example = localExample(file);
	const pdfs = readdirSync(path.join(ctx.filesDir, 'invoices')).filter((f) => f.endsWith('.pdf'));
	const sandbox = sandboxOf(ctx);
	await sandbox.clearRequests();
	const { run, ok, detail } = await execute(ctx, exampleId(file));
	const read = nodeItems(run, 'Read invoice PDFs');
	const rows = nodeItems(run, 'Extract line items');
	const erp = nodeItems(run, 'Send to ERP (replace me)');
	const requests = await sandbox.requests();
	const uploads = requests.filter((r) => r.method === 'POST' && r.path === '/scans');
	ctx.check(
		`example "${example.name}" runs on the sample PDFs: every PDF uploaded, line items out, none with an error`,
		ok &&
			pdfs.length === SAMPLE_INVOICES.length &&
			read.length === pdfs.length &&
			uploads.length === pdfs.length &&
			rows.length >= pdfs.length &&
			rows.every((r) => !r.error) &&
			erp.length === rows.length,
		`${detail}; ${pdfs.length} PDF(s) in ${path.relative(process.cwd(), ctx.filesDir)}/invoices, ${read.length} read, ${uploads.length} upload(s), ${rows.length} row item(s), ${erp.length} to ERP`,
	);
	// The sandbox reads the samples' text: one row per item line, under its own supplier.
	const said = SAMPLE_INVOICES.flatMap(({ lines }) =>
		lines
			.filter((l) => /^\d+ (x|h) /.test(l))
			.map((l) => `${lines[0]}: ${l.replace(/^\d+ (x|h) (.*\S)\s+[\d.]+$/, '$2')}`),
	);
	const got = rows.map((r) => `${r.document?.supplier_name}: ${r.description}`);
	ctx.check(
		`example "${example.name}" gives what the sample PDFs say: each line item under its own supplier`,
		JSON.stringify([...got].sort()) === JSON.stringify([...said].sort()),
		`rows: ${got.join('; ')}; the PDFs say: ${said.join('; ')}`,
	);
	return rows.length;
}

// The same example run again ("If Already Uploaded" = "Return Existing Scan") on a template with
// 100 older scans: no credit, the same rows. The check before the batch lists the last hour and
// finds the first run's scans there (by their content fingerprint), so nothing needs sending; a
// document sent anyway is answered 409, and the template's listing costs at most its pages.
async function invoiceRerun(ctx, first) {
	const sandbox = sandboxOf(ctx);
	const api = sandboxApi(ctx.sandboxBaseUrl, ctx.apiKey);
	await sandbox.control('POST', '/scans', { count: 100, template_id: 3 });
	const usedBefore = unwrap((await api('/account')).body)?.used_scans;
	await sandbox.clearRequests();
	const { run, ok, detail } = await execute(ctx, exampleId('invoice-line-items-to-erp.json'));
	const rows = nodeItems(run, 'Extract line items');
	const requests = await sandbox.requests();
	const uploads = requests.filter((r) => r.method === 'POST' && r.path === '/scans');
	// The template's listing (the hourly check before a batch lists the account's last hour apart).
	const listings = requests.filter(
		(r) => r.method === 'GET' && r.path === '/scans' && r.query?.template_id !== undefined,
	);
	const usedAfter = unwrap((await api('/account')).body)?.used_scans;
	const pages = Math.ceil((100 + SAMPLE_INVOICES.length) / 25);
	ctx.check(
		'example "Invoices → line items → ERP" run again with "Return Existing Scan": no credit, the same rows, nothing sent again',
		ok &&
			uploads.every((r) => r.status === 409) &&
			usedAfter === usedBefore &&
			rows.length === first &&
			rows.every((r) => !r.error) &&
			listings.length <= pages + 2,
		`${detail}; ${uploads.length} upload(s) (${uploads.map((r) => r.status).join(', ')}), credits used ${usedBefore} -> ${usedAfter}, ${rows.length} row(s) (first run ${first}), ${listings.length} listing request(s) for ${pages} page(s)`,
	);
}

// ---- scan-events.json: the webhook trigger, active when n8n starts; a signed delivery runs it -----
async function activateScanEvents(ctx) {
	const id = exampleId('scan-events.json');
	const r = n8nSync(ctx.line.activateArgs(id), { env: ctx.env });
	await settle();
	ctx.check(
		`n8n ${ctx.line.activateArgs(id)[0]} activates the example "scan events" workflow before n8n starts`,
		r.status === 0,
		`exit ${r.status}`,
	);
}

async function scanEvents(ctx) {
	const file = 'scan-events.json';
	const id = exampleId(file);
	const api = sandboxApi(ctx.sandboxBaseUrl, ctx.apiKey);
	const sandbox = sandboxOf(ctx);
	const rest = n8nRest(ctx);
	// n8n activates it while starting; 2.x registers the webhook after it answers: poll for the effect.
	const port = new URL(ctx.n8nUrl).port;
	const ours = () => webhooksAt(ctx, `http://localhost:${port}/webhook/`);
	const hook = await waitFor(async () => (await ours())[0]);
	if (
		!ctx.check(
			'the active Document Scanning Trigger registered its webhook in the sandbox',
			Boolean(hook),
			hook?.url ?? 'none',
		)
	)
		return;

	const templates = unwrap((await api('/templates?per_page=100')).body) ?? [];
	const templateId = String(
		templates.find((tpl) => tpl.is_active !== false)?.id ?? templates[0].id,
	);
	/** Uploads `filename`; returns the upload, the delivery to `hookId` and the execution it started. */
	const deliver = async (filename, hookId) => {
		const form = new FormData();
		form.append('template_id', templateId);
		form.append(
			'file',
			new Blob([Buffer.from(`%PDF-1.4\n% ${filename}\n`)], { type: 'application/pdf' }),
			filename,
		);
		await sandbox.control('DELETE', '/deliveries');
		const upload = await api('/scans', { method: 'POST', body: form });
		const waited = await sandbox.control('POST', '/deliveries/wait', {
			count: 1,
			timeoutMs: 30_000,
		});
		const deliveries = waited.body ?? [];
		const delivery = (Array.isArray(deliveries) ? deliveries : []).find(
			(d) => d.webhookId === hookId,
		);
		// The execution of this delivery (other checks' scans may run the trigger too while it is active).
		const execution = await waitFor(async () => {
			const filter = encodeURIComponent(JSON.stringify({ workflowId: id }));
			const body = (await rest('GET', `executions?filter=${filter}&limit=50`)).body;
			const list = (body?.data?.results ?? body?.data ?? []).filter(
				(e) => e.status === 'success' || e.finished,
			);
			for (const e of Array.isArray(list) ? list : []) {
				const text = JSON.stringify((await rest('GET', `executions/${e.id}`)).body);
				if (text.includes('scan.completed') && text.includes(filename)) return e;
			}
			return undefined;
		});
		return { upload, scanId: unwrap(upload.body)?.id, delivery, execution };
	};

	const first = await deliver('e2e-invoice.pdf', hook.id);
	ctx.check(
		'a signed scan delivery to n8n is accepted (HTTP 200)',
		first.upload.status === 201 || first.upload.status === 202
			? first.delivery?.status === 200
			: false,
		`upload ${first.upload.status} scan ${first.scanId}, delivery ${first.delivery?.event} → ${first.delivery?.status ?? first.delivery?.error}`,
	);
	ctx.check(
		'the delivery ran the trigger workflow to success in n8n, with the delivery body as its item',
		Boolean(first.execution),
		first.execution
			? `execution ${first.execution.id} (${first.execution.mode}), scan.completed for e2e-invoice.pdf in its data`
			: 'no execution with it',
	);

	// The trigger's own answers and refusals (issue #8): fresh, stale, no event.
	await checkWebhookAnswers({ hook, sandboxBaseUrl: ctx.sandboxBaseUrl, check: ctx.check });

	// n8n restarts: 1.x asks checkExists and keeps the webhook; 2.x does not ask. Either way one
	// webhook must remain, and deliveries must still verify (the stored secret still matches).
	if (ctx.restartN8n) {
		await ctx.restartN8n();
		const again = await deliver('e2e-after-restart.pdf', hook.id);
		const hooks = await ours();
		ctx.check(
			'after an n8n restart: still exactly one webhook for the trigger, and a delivery runs the workflow',
			hooks.length === 1 &&
				hooks[0].id === hook.id &&
				again.delivery?.status === 200 &&
				Boolean(again.execution),
			`${hooks.length} webhook(s) (ids ${hooks.map((h) => h.id).join(', ')}), delivery → ${again.delivery?.status ?? again.delivery?.error ?? 'none'}, ${again.execution ? `execution ${again.execution.id}` : 'no execution'}`,
		);
	}

	// Its webhook goes; on 2.x after the REST call returns.
	await setWorkflowActive(ctx, id, false);
	const triggerPath = new URL(hook.url).pathname;
	const gone = await waitFor(async () => (await webhooksAt(ctx, triggerPath)).length === 0);
	ctx.check(
		'deactivating the trigger example deletes its webhook in the sandbox',
		gone,
		gone ? `webhook ${hook.id} deleted` : `webhook ${hook.id} still there`,
	);
}

// ---- scan-events-polling.json: the poll trigger example, activated; finished scans run it --------
async function scanEventsPolling(ctx) {
	const file = 'scan-events-polling.json';
	const id = exampleId(file);
	const name = localExample(file).name;
	const sandbox = sandboxOf(ctx);
	const api = sandboxApi(ctx.sandboxBaseUrl, ctx.apiKey);
	const rest = n8nRest(ctx);
	const scanPolls = () => sandbox.listingReads();
	// The first activation starts from now (its immediate poll emits nothing) ...
	const before = await scanPolls();
	const first = await setWorkflowActive(ctx, id, true);
	const polled = await waitFor(async () => (await scanPolls()) > before, { timeoutMs: 20_000 });
	// That poll reads every page up to its horizon, then saves it in static data; deactivated before
	// it ends, the next activation is a first one again and emits nothing (seen on n8n 2.40.7 with
	// 9 pages of scans).
	const saved = await waitFor(
		async () => {
			const workflow = (await rest('GET', `workflows/${id}`)).body?.data;
			return workflow?.staticData?.['node:Document Scanning Poll Trigger']?.horizon !== undefined;
		},
		{ timeoutMs: 20_000 },
	);
	await setWorkflowActive(ctx, id, false);
	if (
		!ctx.check(
			`example "${name}": activation polls at once, and the poll's state is saved`,
			first.ok && polled && saved,
			`HTTP ${first.status}${saved ? '' : ', no poll state in the static data after 20 s'}`,
		)
	)
		return;

	// ... scans finished while inactive come out with the next activation's immediate poll.
	const stamp = Date.now().toString(36);
	const names = [`e2e-example-poll-${stamp}.pdf`, `e2e-example-poll-${stamp}-fail.pdf`]; // "fail": the sandbox fails it
	const ids = [];
	for (const filename of names) ids.push(await sandbox.uploadPdf(filename));
	await waitFor(async () => {
		const statuses = await Promise.all(
			ids.map(async (sid) => unwrap((await api(`/scans/${sid}`)).body)?.status),
		);
		return statuses.every((s) => ['completed', 'validation_failed', 'failed'].includes(s));
	});
	await setWorkflowActive(ctx, id, true);
	const executions = await waitFor(
		async () => {
			const filter = encodeURIComponent(JSON.stringify({ workflowId: id }));
			const body = (await rest('GET', `executions?filter=${filter}&limit=50`)).body;
			const list = (body?.data?.results ?? body?.data ?? []).filter(
				(e) => e.finished || ['success', 'error', 'crashed'].includes(e.status),
			);
			const details = await Promise.all(
				list.map(async (e) => ({
					...e,
					text: JSON.stringify((await rest('GET', `executions/${e.id}`)).body),
				})),
			);
			return names.every((n) => details.some((d) => d.text.includes(n))) ? details : undefined;
		},
		{ timeoutMs: 30_000, intervalMs: 1_000 },
	);
	await setWorkflowActive(ctx, id, false);
	const failedBranch = executions?.some(
		(e) => e.text.includes(names[1]) && e.text.includes('Tell operations (replace me)'),
	);
	ctx.check(
		`example "${name}": scans finished while inactive run it at the next activation, failed ones to "Tell operations"`,
		Boolean(executions) && executions.every((e) => e.status === 'success') && failedBranch,
		executions
			? `${executions.length} execution(s): ${executions.map((e) => e.status).join(', ')}`
			: 'no execution with the scans',
	);
}

/** Which check covers which file, and in which phase; run in this order. */
export const EXAMPLE_CHECKS = {
	'first-scan.json': { phase: 'server', run: firstScan },
	'daily-credit-check.json': { phase: 'cli', run: dailyCreditCheck },
	'invoice-line-items-to-erp.json': {
		phase: 'cli',
		run: async (ctx) => await invoiceRerun(ctx, await invoiceLineItems(ctx)),
	},
	'hourly-batch-from-folder.json': { phase: 'cli', run: hourlyBatch },
	// Then the same example's once-pattern: a delivery sent again, one effect at the sink.
	'scan-events.json': {
		phase: 'server',
		prepare: activateScanEvents,
		run: async (ctx) => {
			await scanEvents(ctx);
			await checkRepeatedDeliveries(ctx);
		},
	},
	'scan-events-polling.json': { phase: 'server', run: scanEventsPolling },
	// Needs PostgreSQL: run by the queue e2e (tools/e2e/queue/once.mjs), on both lines.
	'deliveries-once-into-postgres.json': { phase: 'queue' },
	'ask-about-your-scans.json': { phase: 'server', run: askAboutYourScans },
	// Its own server check, checkReviewExample (checks/review-example.mjs), on both triggers.
	'scans-to-erp-with-review.json': { phase: 'review' },
};

async function runPhase(ctx, phase) {
	for (const file of Object.keys(EXAMPLE_CHECKS).filter((f) => exampleFiles().includes(f))) {
		const entry = EXAMPLE_CHECKS[file];
		const step = !entry
			? undefined
			: entry.phase === phase
				? entry.run
				: phase === 'cli'
					? entry.prepare
					: undefined;
		if (!step) continue;
		try {
			await step(ctx);
		} catch (err) {
			ctx.check(`example ${file} ran to the end`, false, err.stack ?? String(err));
		}
	}
}

export async function checkExamplesCli(ctx) {
	const missing = exampleFiles().filter((f) => !EXAMPLE_CHECKS[f]);
	ctx.check(
		'every workflow in examples/ has an e2e check',
		missing.length === 0,
		missing.length ? `no check for ${missing.join(', ')}` : `${exampleFiles().length} examples`,
	);
	await runPhase(ctx, 'cli');
}

export async function checkExamplesServer(ctx) {
	await runPhase(ctx, 'server');
}
