// e2e check of a delivery sent twice (issue 25, section 4) with the example
// examples/repeated-deliveries.json in a running real n8n (`n8n start`, one process):
//
// 1. a scan's delivery runs the workflow; once n8n has written the trigger's static data back
//    (just after the trigger answered), the same bytes sent again are answered 200
//    {"received":true,"duplicate":true}, and a resend signed again with a new timestamp is
//    answered 200 too; neither starts an execution (a later delivery's execution is the
//    sentinel that the repeats' would have come before);
// 2. the record of delivery keys is in the workflow's static data in n8n's database (REST);
// 3. the case the trigger cannot see, made certain: the first delivery's "Include Full Scan"
//    read is held 3 s by the sandbox, so its static data is written 3 s later, and the same
//    bytes sent meanwhile are taken as new. Both executions carry the same deliveryKey, and the
//    example's Remove Duplicates node (n8n's own) passes the item in one of them only.
import { exampleId, localExample } from '../../n8n/local.mjs';
import { nodeOutput } from '../../n8n/rest.mjs';
import { deliveryKeyOf } from '../delivery-key.mjs';
import { restOf, sandboxOf, setWorkflowActive, waitFor, webhooksAt } from './support.mjs';

const FILE = 'repeated-deliveries.json';
const TRIGGER = 'Document Scanning Trigger';
const DROP = 'Drop repeated deliveries';
const BOOK = 'Book the document (replace me)';
/** How long the sandbox holds the first delivery's full-scan read in part 3. */
const HELD_READ_MS = 3_000;

/** @param {import('./support.mjs').E2eContext} ctx */
export async function checkRepeatedDeliveries(ctx) {
	const id = exampleId(FILE);
	const example = localExample(FILE);
	const webhookPath = example.nodes.find((n) => n.name === TRIGGER)?.webhookId;
	const sandbox = sandboxOf(ctx);
	const rest = restOf(ctx);
	const name = `example "${example.name}"`;

	const triggerHooks = () => webhooksAt(ctx, `/webhook/${webhookPath}/`);
	// The trigger's own webhook (another than `old`) once activation is over: it and its key carrier
	// exist, and n8n saved the static data. On 2.x that ends after the REST call returns; a delivery
	// before it is refused (no carrier yet) or its write-back is overwritten.
	const activeHook = (old) =>
		waitFor(async () => {
			const hooks = await triggerHooks();
			const own = hooks.find((h) => !String(h.url).includes('ds_seal=') && h.id !== old?.id);
			const saved = (await rest.workflow(id))?.staticData?.[`node:${TRIGGER}`]?.webhookId;
			return hooks.length === 2 && own && String(saved) === String(own.id) ? own : undefined;
		});

	const activated = await setWorkflowActive(ctx, id, true);
	const hook = await activeHook();
	if (
		!ctx.check(
			`${name}: activation registers its webhook`,
			activated.ok && hook,
			hook?.url ??
				`HTTP ${activated.status}; no webhook, key carrier and saved static data after 30 s`,
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
	/** The finished executions whose trigger item carries `key`. */
	const seen = new Map();
	const executionsOf = async (key) => {
		const out = [];
		for (const e of await rest.executions(id, 100)) {
			if (!e.stoppedAt && !['success', 'error', 'crashed'].includes(e.status)) continue;
			if (!seen.has(e.id)) seen.set(e.id, await rest.execution(e.id));
			const full = seen.get(e.id);
			if (nodeOutput(full, TRIGGER)[0]?.deliveryKey === key) out.push(full);
		}
		return out;
	};
	const stamp = Date.now().toString(36);

	/** The trigger's record in the workflow's static data, as n8n's database holds it (REST). */
	const recorded = async () =>
		(await rest.workflow(id))?.staticData?.[`node:${TRIGGER}`]?.recentDeliveries ?? {};

	// ---- 1. repeats after the first delivery was handled ------------------------------------
	// n8n writes the static data back just after the trigger answered: the resends wait for it.
	const a = await upload(`e2e-repeat-a-${stamp}.pdf`);
	await waitFor(async () => a.key in (await recorded()), { timeoutMs: 30_000, intervalMs: 100 });
	const first = await waitFor(async () => (await executionsOf(a.key)).length > 0, {
		timeoutMs: 30_000,
	});
	const same = await resend(a.record);
	const restamped = (
		await sandbox.control('POST', '/deliveries/repeat', { index: a.index, restamp: true })
	).body?.[0];
	const sentinel = await upload(`e2e-repeat-sentinel-${stamp}.pdf`);
	await waitFor(async () => (await executionsOf(sentinel.key)).length > 0, { timeoutMs: 30_000 });
	const runsOfA = await executionsOf(a.key);
	ctx.check(
		`${name}: the same delivery sent again (same bytes, or signed again with a new timestamp) is answered 200 as a duplicate and starts no execution`,
		a.record.status === 200 &&
			Boolean(first) &&
			same.status === 200 &&
			JSON.stringify(same.json) === '{"received":true,"duplicate":true}' &&
			restamped?.status === 200 &&
			runsOfA.length === 1 &&
			runsOfA[0].status === 'success',
		`first → ${a.record.status}; same bytes → ${same.status} ${same.text.slice(0, 80)}; restamped → ${restamped?.status ?? restamped?.error}; executions with ${a.key}: ${runsOfA.length} (after the sentinel's)`,
	);

	// ---- 2. the record is in the workflow's static data, in n8n's database ----------------------
	const stored = await recorded();
	ctx.check(
		`${name}: the keys of the deliveries that ran are in the workflow's static data (n8n saved what webhook() wrote)`,
		a.key in stored && sentinel.key in stored,
		`recentDeliveries: ${JSON.stringify(Object.keys(stored))}`,
	);

	// ---- 3. a repeat while the first is still being handled: Remove Duplicates drops it --------
	await sandbox.control('POST', '/faults', {
		method: 'GET',
		path: '^/scans/\\d+$',
		kind: 'latency',
		latencyMs: HELD_READ_MS,
		times: 1,
	});
	const c = await upload(`e2e-repeat-held-${stamp}.pdf`);
	const early = await resend(c.record);
	const both = await waitFor(
		async () => {
			const runs = await executionsOf(c.key);
			return runs.length >= 2 ? runs : undefined;
		},
		{ timeoutMs: 60_000 },
	);
	await sandbox.control('DELETE', '/faults');
	const kept = (both ?? []).map((run) => nodeOutput(run, DROP).length);
	const booked = (both ?? []).reduce((n, run) => n + nodeOutput(run, BOOK).length, 0);
	ctx.check(
		`${name}: a repeat while the first delivery is still being handled runs too (the trigger cannot see it), with the same deliveryKey; Remove Duplicates passes the item once`,
		JSON.stringify(early.json) === '{"received":true}' &&
			both?.length === 2 &&
			both.every((run) => run.status === 'success') &&
			[...kept].sort().join() === '0,1' &&
			booked === 1,
		`same bytes during the held read → ${early.status} ${early.text.slice(0, 60)}; executions with ${c.key}: ${both?.length ?? 0}; "${DROP}" kept ${kept.join(' + ')}; "${BOOK}" got ${booked}`,
	);

	// ---- 4. re-activation while a delivery is in flight (issue 33 §1) --------------------------
	// Its full-scan read is held by the sandbox until released; meanwhile the workflow is
	// deactivated and activated again (a new webhook and secret); then the held delivery ends and
	// n8n writes its copy of static data (the old webhook's) back. The new webhook's deliveries
	// must all be verified: its secret is also held at the service, by its key carrier.
	await sandbox.control('POST', '/faults', { method: 'GET', path: '^/scans/\\d+$', kind: 'hold' });
	const d = await upload(`e2e-reactivate-held-${stamp}.pdf`);
	const holding = await waitFor(
		async () => ((await sandbox.control('GET', '/held')).body?.held ?? 0) >= 1,
		{ timeoutMs: 30_000, intervalMs: 100 },
	);
	await setWorkflowActive(ctx, id, false);
	await setWorkflowActive(ctx, id, true);
	const renewed = await activeHook(hook);
	await sandbox.control('POST', '/held/release');
	const heldRuns = await waitFor(async () => (await executionsOf(d.key)).length > 0, {
		timeoutMs: 30_000,
	});
	const statuses = [];
	for (let i = 0; i < 10; i++) {
		const scanId = ((await sandbox.control('POST', '/scans', { count: 1 })).body?.ids ?? [])[0];
		const sent = await sandbox.control('POST', '/deliver', {
			webhookId: renewed?.id,
			event: 'scan.completed',
			scanId,
		});
		statuses.push(sent.body?.status ?? sent.status);
	}
	const record = renewed
		? (await sandbox.control('GET', `/webhooks/${renewed.id}`)).body
		: undefined;
	ctx.check(
		`${name}: re-activated while a delivery's full-scan read is held, then the held delivery ends: the new webhook's next 10 deliveries are all verified (200), none counts as a failure`,
		holding &&
			Boolean(renewed) &&
			Boolean(heldRuns) &&
			statuses.length === 10 &&
			statuses.every((status) => status === 200) &&
			record?.failureCount === 0 &&
			record?.active === true,
		`held: ${holding}; new webhook ${renewed?.id ?? 'none'} (was ${hook.id}); deliveries → ${statuses.join(' ')}; failures counted ${record?.failureCount}`,
	);

	// Deactivated, both of the trigger's webhooks go; n8n 2.x deletes them after the REST call
	// returns, so wait, or a late DELETE lands in the next check's request log.
	await setWorkflowActive(ctx, id, false);
	await waitFor(async () => (await triggerHooks()).length === 0);
}
