// e2e check of a delivery sent again (issue 38 §2) with the example examples/scan-events.json in a
// running real n8n (`n8n start`, one process), after the scan-events check deactivated it:
//
// 1. activation leaves exactly one webhook at the trigger's path, the one its static data names;
// 2. a scan's delivery runs the workflow; once that execution finished, the same bytes and a
//    resend signed again with a new timestamp are both answered 200 {"received":true} and run
//    too (delivery is at least once), each item with the same deliveryKey; the effect is counted
//    at the sink: the example's Remove Duplicates node (n8n's own) passes the item once, so
//    "Book the document" gets it once;
// 3. re-activation while a delivery is in flight (issue 33 §1): its full-scan read is held by the
//    sandbox while the workflow is deactivated and activated again; then it ends. A delivery
//    writes no static data, so the new webhook's next deliveries all verify;
// 4. deactivation leaves no webhook at the trigger's path.
import { exampleId, localExample } from '../../n8n/local.mjs';
import { nodeOutput } from '../../n8n/rest.mjs';
import { deliveryKeyOf } from '../delivery-key.mjs';
import { restOf, sandboxOf, setWorkflowActive, waitFor, webhooksAt } from './support.mjs';

const FILE = 'scan-events.json';
const TRIGGER = 'Document Scanning Trigger';
const DROP = 'Drop repeated deliveries';
const BOOK = 'Book the document (replace me)';

/** @param {import('./support.mjs').E2eContext} ctx */
export async function checkRepeatedDeliveries(ctx) {
	const id = exampleId(FILE);
	const example = localExample(FILE);
	const webhookPath = example.nodes.find((n) => n.name === TRIGGER)?.webhookId;
	const sandbox = sandboxOf(ctx);
	const rest = restOf(ctx);
	const name = `example "${example.name}"`;

	const triggerHooks = () => webhooksAt(ctx, `/webhook/${webhookPath}/`);
	// Activation is over once n8n saved the static data naming a webhook (another than `old`) the
	// service has; on 2.x that ends after the REST call returns. Then the webhooks at the path.
	const activated = async (old) => {
		const saved = await waitFor(async () => {
			const stored = (await rest.workflow(id))?.staticData?.[`node:${TRIGGER}`]?.webhookId;
			const hooks = await triggerHooks();
			return stored !== undefined &&
				String(stored) !== String(old?.id) &&
				hooks.some((h) => String(h.id) === String(stored))
				? String(stored)
				: undefined;
		});
		const hooks = await triggerHooks();
		return { hook: hooks.find((h) => String(h.id) === saved), hooks };
	};

	const answer = await setWorkflowActive(ctx, id, true);
	const { hook, hooks } = await activated();
	if (
		!ctx.check(
			`${name}: activation leaves exactly one webhook at the trigger's path, the one its static data names`,
			answer.ok && hook && hooks.length === 1,
			hook
				? `${hooks.length} webhook(s): ${hooks.map((h) => `${h.id} ${h.url}`).join(', ')}`
				: `HTTP ${answer.status}; no webhook with saved static data after 30 s`,
		)
	)
		return;

	/** Uploads a PDF; its delivery record to the example's webhook (and its index) once answered. */
	const upload = async (filename) => {
		const scanId = await sandbox.uploadPdf(filename);
		const found = await waitFor(
			async () => {
				const list = (await sandbox.control('GET', '/deliveries')).body ?? [];
				const index = list.findIndex((d) => d.webhookId === hook.id && d.scanId === scanId);
				return index >= 0 ? { index, record: list[index] } : undefined;
			},
			{ timeoutMs: 30_000, intervalMs: 50 },
		);
		return { scanId, key: deliveryKeyOf(found.record.body), ...found };
	};
	/** Sends a recorded delivery's exact bytes and headers to the trigger; the answer. */
	const resend = async (record) => {
		const res = await fetch(hook.url, {
			method: 'POST',
			headers: record.headers,
			body: record.body,
		});
		const text = await res.text();
		return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : undefined };
	};
	/** The finished executions whose trigger item carries `key`, oldest first. */
	const seen = new Map();
	const executionsOf = async (key) => {
		const out = [];
		for (const e of await rest.executions(id, 100)) {
			if (!e.stoppedAt && !['success', 'error', 'crashed'].includes(e.status)) continue;
			if (!seen.has(e.id)) seen.set(e.id, await rest.execution(e.id));
			const full = seen.get(e.id);
			if (nodeOutput(full, TRIGGER)[0]?.deliveryKey === key) out.push(full);
		}
		return out.sort((a, b) => Number(a.id) - Number(b.id));
	};
	const stamp = Date.now().toString(36);

	// ---- 2. sent again once the first run finished: all run, the sink gets the item once ---------
	const a = await upload(`e2e-repeat-a-${stamp}.pdf`);
	const first = await waitFor(async () => (await executionsOf(a.key)).length > 0, {
		timeoutMs: 30_000,
	});
	const same = await resend(a.record);
	const restamped = (
		await sandbox.control('POST', '/deliveries/repeat', { index: a.index, restamp: true })
	).body?.[0];
	const runs = await waitFor(
		async () => {
			const list = await executionsOf(a.key);
			return list.length >= 3 ? list : undefined;
		},
		{ timeoutMs: 30_000 },
	);
	const passed = (runs ?? []).map((run) => nodeOutput(run, DROP).length);
	const booked = (runs ?? []).reduce((n, run) => n + nodeOutput(run, BOOK).length, 0);
	ctx.check(
		`${name}: a delivery sent again after its run (same bytes, and signed again with a new timestamp) is answered 200 and runs, with the same deliveryKey; Remove Duplicates passes the item once, so the sink gets it once`,
		a.record.status === 200 &&
			Boolean(first) &&
			JSON.stringify(same.json) === '{"received":true}' &&
			restamped?.status === 200 &&
			runs?.length === 3 &&
			runs.every((run) => run.status === 'success') &&
			passed.join() === '1,0,0' &&
			booked === 1,
		`first → ${a.record.status}; same bytes → ${same.status} ${same.text.slice(0, 60)}; restamped → ${restamped?.status ?? restamped?.error}; executions with ${a.key}: ${runs?.length ?? 0} (${(runs ?? []).map((r) => r.status).join(', ')}); "${DROP}" passed ${passed.join(' + ')}; "${BOOK}" got ${booked}`,
	);

	// ---- 3. re-activation while a delivery is in flight (issue 33 §1) --------------------------
	// Its full-scan read is held by the sandbox until released; meanwhile the workflow is
	// deactivated and activated again (a new webhook and secret); then the held delivery ends.
	await sandbox.control('POST', '/faults', { method: 'GET', path: '^/scans/\\d+$', kind: 'hold' });
	const d = await upload(`e2e-reactivate-held-${stamp}.pdf`);
	const holding = await waitFor(
		async () => ((await sandbox.control('GET', '/held')).body?.held ?? 0) >= 1,
		{ timeoutMs: 30_000, intervalMs: 100 },
	);
	await setWorkflowActive(ctx, id, false);
	await setWorkflowActive(ctx, id, true);
	const renewed = await activated(hook);
	await sandbox.control('POST', '/held/release');
	await sandbox.control('DELETE', '/faults');
	const heldRuns = await waitFor(async () => (await executionsOf(d.key)).length > 0, {
		timeoutMs: 30_000,
	});
	const statuses = [];
	for (let i = 0; i < 10; i++) {
		const scanId = ((await sandbox.control('POST', '/scans', { count: 1 })).body?.ids ?? [])[0];
		const sent = await sandbox.control('POST', '/deliver', {
			webhookId: renewed.hook?.id,
			event: 'scan.completed',
			scanId,
		});
		statuses.push(sent.body?.status ?? sent.status);
	}
	const record = renewed.hook
		? (await sandbox.control('GET', `/webhooks/${renewed.hook.id}`)).body
		: undefined;
	ctx.check(
		`${name}: re-activated while a delivery's full-scan read is held, then the held delivery ends: one webhook at the path, and its next 10 deliveries are all verified (200), none counts as a failure`,
		holding &&
			Boolean(renewed.hook) &&
			renewed.hooks.length === 1 &&
			Boolean(heldRuns) &&
			statuses.length === 10 &&
			statuses.every((status) => status === 200) &&
			record?.failureCount === 0 &&
			record?.active === true,
		`held: ${holding}; webhooks at the path: ${renewed.hooks.map((h) => h.id).join(', ') || 'none'} (was ${hook.id}); deliveries → ${statuses.join(' ')}; failures counted ${record?.failureCount}`,
	);

	// ---- 4. deactivation: no webhook left at the path (2.x deletes it after the call returns) ----
	await setWorkflowActive(ctx, id, false);
	const gone = await waitFor(async () => (await triggerHooks()).length === 0);
	ctx.check(
		`${name}: deactivation leaves no webhook at the trigger's path`,
		gone,
		gone ? 'none left' : `left: ${(await triggerHooks()).map((h) => h.id).join(', ')}`,
	);
}
