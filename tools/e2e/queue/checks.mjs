// Queue-mode checks: the action node on a worker, an upload with Wait for Completion from binary
// data in `database` mode, and the trigger's lifecycle across main / webhook process / workers.
import { signatureHeader } from '../../../sandbox/signing.js';
import { SandboxClient, unwrap } from '../sandbox-client.mjs';
import { SANDBOX_KEY } from '../../n8n/local.mjs';
import { respawn } from './processes.mjs';
import { nodeOutput } from '../../n8n/rest.mjs';
import { pgClient } from './services.mjs';
import {
	ACTION_WORKFLOW,
	TRIGGER_WEBHOOK_ID,
	TRIGGER_WORKFLOW,
	UPLOAD_WORKFLOW,
} from './workflows.mjs';

/** The one sandbox client (tools/e2e/sandbox-client.mjs) with the queue run's key. */
export function sandboxOf(ctx) {
	return new SandboxClient(ctx.sandbox.baseUrl, SANDBOX_KEY);
}

/** The sandbox's API with the default key: { status, body } with the body unwrapped. */

export async function api(ctx, pathname, init = {}) {
	const { status, body } = await sandboxOf(ctx).api(pathname, init);
	return { status, body: unwrap(body) };
}

/** The sandbox's control surface (/__sandbox/...): the unwrapped body. */
export async function control(ctx, method, pathname, body) {
	return (await sandboxOf(ctx).control(method, pathname, body)).body;
}

export async function usedScans(ctx) {
	return (await api(ctx, '/account')).body.used_scans;
}

/** The sandbox's webhooks that point at the webhook process. */
export async function hooksOnWebhookProcess(ctx) {
	const hooks = (await api(ctx, '/webhooks')).body ?? [];
	return hooks.filter((h) => String(h.url).startsWith(ctx.procs.webhook.url));
}

export async function waitFor(what, fn, timeoutMs = 30_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await fn();
		if (value) return value;
		if (Date.now() > deadline)
			throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 300));
	}
}

/**
 * Resolves once n8n has registered the workflow's production webhooks (rows in webhook_entity,
 * where the webhook process looks them up). n8n 2.x registers them after the activation's REST
 * call has returned; 1.x before. (A CORS preflight is no probe: 2.x answers it 204 for any path.)
 */
export async function waitUntilServed(ctx, workflowId, timeoutMs = 60_000) {
	const db = await pgClient(ctx.pg);
	try {
		return await waitFor(
			`the webhooks of workflow ${workflowId} to be registered`,
			async () =>
				Number(
					(
						await db.query('select count(*) as n from webhook_entity where "workflowId" = $1', [
							workflowId,
						])
					).rows[0].n,
				) > 0,
			timeoutMs,
		);
	} finally {
		await db.end();
	}
}

/** The sandbox's webhooks of the trigger at `/webhook/<path>/`. */
async function triggerHooks(ctx, path) {
	const hooks = (await api(ctx, '/webhooks')).body ?? [];
	return hooks.filter((h) => String(h.url).includes(`/webhook/${path}/`));
}

/**
 * Activates a trigger workflow; its webhook once n8n saved the static data naming it (2.x
 * registers it after the call returns, and the webhook processes read the secret from there).
 */
export async function activateTrigger(ctx, id = TRIGGER_WORKFLOW.id, path = TRIGGER_WEBHOOK_ID) {
	await ctx.rest.activate(id);
	let seen = '';
	return await waitFor('the trigger’s webhook and the static data naming it', async () => {
		const data = (await ctx.rest.workflow(id))?.staticData;
		const stored = Object.values((typeof data === 'string' ? JSON.parse(data) : data) ?? {});
		const ids = stored.map((node) => String(node?.webhookId));
		const hooks = await triggerHooks(ctx, path);
		seen = `webhooks ${hooks.map((h) => h.id).join(', ') || 'none'}, static data names ${ids.join(', ') || 'none'}`;
		return hooks.find((h) => ids.includes(String(h.id)));
	}).catch((err) => {
		throw new Error(`${err.message} (${seen})`);
	});
}

/** Deactivates a trigger workflow; true once its webhook is gone (2.x: after the call returns). */
export async function deactivateTrigger(ctx, id = TRIGGER_WORKFLOW.id, path = TRIGGER_WEBHOOK_ID) {
	await ctx.rest.deactivate(id);
	return waitFor('the trigger’s webhooks to be deleted', async () =>
		(await triggerHooks(ctx, path)).length === 0 ? true : undefined,
	).catch(() => false);
}

export function workerOf(ctx, executionId) {
	return ctx.procs.workers.find((w) => w.ranExecution(executionId))?.name;
}

/** Signs a body the way the service does, with the webhook's secret from the sandbox. */
export async function signer(ctx, hookId) {
	const record = await control(ctx, 'GET', `/webhooks/${hookId}`);
	if (!record?.secret) throw new Error(`the sandbox has no secret for webhook ${hookId}`);
	return (body) => signatureHeader(record.secret, body);
}

/**
 * Resolves once the trigger at each URL answers a forged delivery with its own 401 (the package
 * loaded, the webhook found); until then a webhook process may answer 404 or 500.
 */
export async function waitUntilVerifying(urls) {
	for (const url of urls)
		await waitFor(`the trigger at ${url}`, async () => {
			const res = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-service-signature': 'sha256=0' },
				body: '{}',
			}).catch(() => undefined);
			return res?.status === 401 && ((await res.text()) ?? '').includes('invalid_signature');
		});
}

/** POSTs a JSON body signed with `sign` (see signer) to the trigger at `url`: the Response. */
export function postSigned(url, sign, body, timeoutMs = 10_000) {
	return fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'x-service-event': JSON.parse(body).event ?? 'scan.completed',
			'x-service-signature': sign(body),
		},
		body,
		signal: AbortSignal.timeout(timeoutMs),
	});
}

/** Scan IDs of crafted deliveries: each body names its own scan. */
let craftedScanId = 1_000_000;

export function deliveryBody(marker, scanId = (craftedScanId += 1)) {
	return JSON.stringify({
		event: 'scan.completed',
		timestamp: new Date().toISOString(),
		data: { scan_id: scanId, filename: `${marker}.pdf`, template_id: 1, status: 'completed' },
	});
}

export async function runChecks(ctx) {
	const { check, rest, procs } = ctx;

	// ---- the action node's workflow, run manually through REST, on a worker -------------------
	let t = Date.now();
	const execId = await rest.runManually(ACTION_WORKFLOW.id, 'Start');
	const exec = await rest.waitForExecution(execId);
	const account = (await api(ctx, '/account')).body;
	const balance = nodeOutput(exec, 'Balance');
	const templates = nodeOutput(exec, 'Templates');
	check(
		'queue: Account → Get and Template → Get Many run on a worker (manual run offloaded)',
		exec.status === 'success' &&
			Boolean(workerOf(ctx, execId)) &&
			balance[0]?.remaining_scans === account.remaining_scans &&
			templates.length > 0,
		`execution ${execId} ${exec.status} on ${workerOf(ctx, execId) ?? 'no worker'}, ${templates.length} templates, ${Date.now() - t} ms`,
	);

	// ---- upload with Wait for Completion, the file received by the webhook process --------------
	t = Date.now();
	const db = await pgClient(ctx.pg);
	try {
		const before = await usedScans(ctx);
		const binaryRowsBefore = Number(
			(await db.query('select count(*) as n from binary_data')).rows[0].n,
		);
		const form = new FormData();
		form.append('template_id', '1');
		form.append(
			'data',
			new Blob([Buffer.from('%PDF-1.4\n% queue e2e upload\n')], { type: 'application/pdf' }),
			'queue-upload.pdf',
		);
		await rest.activate(UPLOAD_WORKFLOW.id);
		const uploadUrl = new URL('webhook/queue-e2e-upload', procs.webhook.url).href;
		await waitUntilServed(ctx, UPLOAD_WORKFLOW.id);
		const res = await fetch(uploadUrl, { method: 'POST', body: form });
		const scan = await res.json().catch(() => ({}));
		const binaryRows = Number((await db.query('select count(*) as n from binary_data')).rows[0].n);
		const runs = await rest.executions(UPLOAD_WORKFLOW.id, 5);
		const uploadExec = runs[0];
		await rest.deactivate(UPLOAD_WORKFLOW.id);
		ctx.uploadedScanId = Number(scan?.id);
		check(
			'queue: an upload with Wait for Completion from binary data in database mode (file received by the webhook process, uploaded by a worker)',
			res.status === 200 &&
				scan?.status === 'completed' &&
				scan?.filename === 'queue-upload.pdf' &&
				(await usedScans(ctx)) === before + 1 &&
				binaryRows > binaryRowsBefore &&
				uploadExec?.status === 'success' &&
				Boolean(workerOf(ctx, uploadExec.id)),
			`HTTP ${res.status}, scan ${scan?.id} ${scan?.status}, binary_data rows ${binaryRowsBefore} → ${binaryRows}, execution ${uploadExec?.id} ${uploadExec?.status} on ${workerOf(ctx, uploadExec?.id) ?? 'no worker'}, ${Date.now() - t} ms`,
		);
	} finally {
		await db.end();
	}

	// ---- the trigger: activation registers the webhook (main) ---------------------------------
	t = Date.now();
	const hook = await activateTrigger(ctx);
	const hooks = await hooksOnWebhookProcess(ctx);
	check(
		'queue: activating the trigger registers one webhook for the webhook process’s URL',
		hooks.length === 1 && hook.url === `${procs.webhook.url}webhook/${TRIGGER_WEBHOOK_ID}/webhook`,
		`${hooks.map((h) => `${h.id} ${h.url}`).join(', ')} (${Date.now() - t} ms)`,
	);
	ctx.hook = hook;
	await waitUntilServed(ctx, TRIGGER_WORKFLOW.id);

	// ---- a forged delivery (401, no execution), then a signed one (runs on a worker) ------------
	t = Date.now();
	const forgedBody = deliveryBody('queue-forged');
	const forged = await fetch(hook.url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'x-service-event': 'scan.completed',
			'x-service-signature': `sha256=${'0'.repeat(64)}`,
		},
		body: forgedBody,
	});
	const delivery = await control(ctx, 'POST', '/deliver', {
		webhookId: hook.id,
		event: 'scan.completed',
		scanId: ctx.uploadedScanId,
	});
	const triggerRuns = await waitFor('the signed delivery’s execution', async () => {
		const list = await rest.executions(TRIGGER_WORKFLOW.id, 20);
		return list.some((e) => e.status === 'success') ? list : undefined;
	});
	const ran = triggerRuns.find((e) => e.status === 'success');
	const full = await rest.execution(ran.id);
	const item = nodeOutput(full, 'Scan events')[0];
	check(
		'queue: a signed delivery is verified in the webhook process and runs on a worker',
		delivery?.status === 200 &&
			item?.event === 'scan.completed' &&
			item?.data?.scan_id === ctx.uploadedScanId &&
			Boolean(workerOf(ctx, ran.id)),
		`delivery → ${delivery?.status ?? delivery?.error}, execution ${ran.id} on ${workerOf(ctx, ran.id) ?? 'no worker'}, ${Date.now() - t} ms`,
	);
	check(
		'queue: a forged delivery gets 401 and starts no execution',
		forged.status === 401 && triggerRuns.length === 1,
		`HTTP ${forged.status}, ${triggerRuns.length} execution(s) of the trigger workflow after forged + signed`,
	);

	// ---- a restart of main with the trigger active: no second registration ---------------------
	t = Date.now();
	await procs.main.stop();
	procs.main = respawn(procs.main).start(ctx.verbose);
	await procs.main.waitReady();
	await rest.signIn();
	// 1.x: main activates the active workflows at start-up ("Activated workflow ... (ID: ...)").
	// 2.x logs that only when it adds webhooks or pollers; at start-up it keeps the registered
	// webhooks of a webhook-only workflow, so it logs nothing for this one.
	const logsActivation = ctx.line.major < 2;
	const activationLine = logsActivation
		? await waitFor('main to activate the trigger workflow again', () =>
				procs.main.lines.find(
					(l) =>
						l.includes(`(ID: ${TRIGGER_WORKFLOW.id})`) &&
						/Activated workflow|Issue on initial/.test(l),
				),
			).catch(() => "no activation line in main's log")
		: 'no activation line expected on 2.x';
	const after = await hooksOnWebhookProcess(ctx);
	// Another scan, so that its execution tells itself apart.
	const [nextScanId] = (await control(ctx, 'POST', '/scans', { count: 1 }))?.ids ?? [];
	const again = await control(ctx, 'POST', '/deliver', {
		webhookId: hook.id,
		event: 'scan.completed',
		scanId: nextScanId,
	});
	check(
		'queue: restarting main with the trigger active registers no second webhook, and deliveries still run',
		after.length === 1 &&
			after[0].id === hook.id &&
			again?.status === 200 &&
			(!logsActivation || activationLine.includes('Activated workflow')),
		`${activationLine.replace(/^.*?(Activated|Issue)/, '$1')}; webhooks after restart: ${after.map((h) => h.id).join(', ')}, delivery → ${again?.status ?? again?.error}, ${Date.now() - t} ms`,
	);
	await waitFor(
		'the post-restart delivery’s execution',
		async () =>
			(await rest.executions(TRIGGER_WORKFLOW.id, 20)).filter((e) => e.status === 'success')
				.length >= 2,
	);

	// ---- deactivation deletes the webhook ---------------------------------------------------------
	t = Date.now();
	const gone = await deactivateTrigger(ctx);
	check(
		'queue: deactivating the trigger deletes its webhook',
		gone === true,
		`${Date.now() - t} ms`,
	);
}
