// Load on queue mode: signed deliveries to the webhook process (vs forged ones, vs n8n's plain
// Webhook node at v2 and at v1), and 100 uploads in one execution on a worker. The figures are
// benchmarks (printed, recorded in the README), never timed assertions; the counts are assertions.
//
// Two references: n8n 2.x's webhook process skips its per-request expression isolate only for
// n8n's own Webhook node v2+ with static parameters; every other trigger (n8n's app triggers, this
// package's) pays for it. The Webhook node at v1 takes that same path, so "signed ÷ v1" compares
// like with like and "signed ÷ v2" shows what the exemption is worth. On 1.x both paths are one.
import { signatureHeader } from '../../../sandbox/signing.js';
import { nodeOutput } from '../../n8n/rest.mjs';
import { pgClient } from './services.mjs';
import {
	activateTrigger,
	deactivateTrigger,
	deliveryBody,
	signer,
	usedScans,
	waitFor,
	waitUntilServed,
	workerOf,
} from './checks.mjs';
import {
	BATCH_LOAD_WORKFLOW,
	PLAIN_PATH,
	PLAIN_V1_PATH,
	PLAIN_V1_WORKFLOW,
	PLAIN_WORKFLOW,
	TRIGGER_WORKFLOW,
} from './workflows.mjs';

export const DELIVERIES = Number(process.env.QUEUE_E2E_DELIVERIES) || 300;
export const AT_A_TIME = 30;
/** The service waits this long for an answer (spec: "waits up to 10 seconds"). */
const SERVICE_WAIT_MS = 10_000;

/** Sends `count` requests, `width` at a time; returns each answer's status and time, and the wall time. */
export async function blast(count, width, request) {
	const results = new Array(count);
	let next = 0;
	const started = Date.now();
	const lane = async () => {
		for (let i = next++; i < count; i = next++) {
			const t = Date.now();
			try {
				const res = await request(i, AbortSignal.timeout(SERVICE_WAIT_MS));
				await res.arrayBuffer();
				results[i] = { status: res.status, ms: Date.now() - t };
			} catch (err) {
				results[i] = { status: 0, ms: Date.now() - t, error: err.name };
			}
		}
	};
	await Promise.all(Array.from({ length: width }, lane));
	const wallMs = Date.now() - started;
	const times = results.map((r) => r.ms).sort((a, b) => a - b);
	return {
		results,
		wallMs,
		perSecond: (count / wallMs) * 1000,
		p50: times[Math.floor(count * 0.5)],
		p95: times[Math.floor(count * 0.95)],
		max: times[count - 1],
	};
}

/** Executions of a workflow newer than `afterId`, by status. */
async function executionCounts(db, workflowId, afterId) {
	const { rows } = await db.query(
		'select status, count(*)::int as n, max("stoppedAt") as last from execution_entity where "workflowId" = $1 and id > $2 group by status',
		[workflowId, afterId],
	);
	return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

export async function lastExecutionId(db) {
	return Number(
		(await db.query('select coalesce(max(id), 0) as id from execution_entity')).rows[0].id,
	);
}

/** How many successful executions carry each marker `<prefix>-<i>-x` in their data. */
async function markerCounts(db, workflowId, afterId, prefix) {
	const { rows } = await db.query(
		`select m[1] as marker, count(distinct e.id)::int as n
		   from execution_entity e join execution_data d on d."executionId" = e.id,
		        lateral regexp_matches(d.data, '(${prefix}-[0-9]+)-x', 'g') as m
		  where e."workflowId" = $1 and e.id > $2 and e.status = 'success'
		  group by 1`,
		[workflowId, afterId],
	);
	return new Map(rows.map((r) => [r.marker, r.n]));
}

/** Waits until `expected` executions of the workflow (after `afterId`) are finished; returns when the last stopped. */
async function settle(db, workflowId, afterId, expected, timeoutMs = 300_000) {
	await waitFor(
		`${expected} finished executions of ${workflowId}`,
		async () => {
			const counts = await executionCounts(db, workflowId, afterId);
			const done = Object.entries(counts)
				.filter(([s]) => !['new', 'running', 'waiting'].includes(s))
				.reduce((a, [, n]) => a + n, 0);
			return done >= expected;
		},
		timeoutMs,
	);
	const { rows } = await db.query(
		'select max("stoppedAt") as last from execution_entity where "workflowId" = $1 and id > $2',
		[workflowId, afterId],
	);
	return new Date(rows[0].last).getTime();
}

const ok2xx = (r) => r.status >= 200 && r.status < 300;

/** How many answers of each status (or error name). */
function summary(results) {
	const answers = {};
	for (const r of results) answers[r.error ?? r.status] = (answers[r.error ?? r.status] ?? 0) + 1;
	return answers;
}

/**
 * One endpoint's load: its deliveries go out in two halves, and `runLoad` orders the halves of
 * the endpoints A B C C B A, so a machine that speeds up or slows down during the test (other jobs,
 * a growing database) does not favour whichever endpoint goes first.
 */
function endpointLoad(ctx, db, { name, workflowId, prefix, send, reference = false }) {
	const state = { results: [], wallMs: 0, processedMs: 0, afterId: undefined };
	const half = DELIVERIES / 2;
	return {
		/** Sends half `h` (0 or 1) and waits until each of its 2xx answers has become a finished execution. */
		async send(h) {
			if (state.afterId === undefined) state.afterId = await lastExecutionId(db);
			const start = Date.now();
			const count = h === 0 ? Math.floor(half) : DELIVERIES - Math.floor(half);
			const offset = h === 0 ? 0 : Math.floor(half);
			const load = await blast(count, AT_A_TIME, (i, signal) =>
				send(deliveryBody(`${prefix}-${offset + i}-x`), signal),
			);
			state.results.push(...load.results);
			state.wallMs += load.wallMs;
			const lastStop = await settle(
				db,
				workflowId,
				state.afterId,
				state.results.filter(ok2xx).length,
			);
			state.processedMs += Math.max(1, lastStop - start);
		},
		/** The check and the figures, after both halves. */
		async report() {
			const { check, figures } = ctx;
			// A reference path's late answers (aborted after 10 s) still run: wait for them, bounded.
			if (reference)
				await settle(db, workflowId, state.afterId, DELIVERIES, 60_000).catch(() => undefined);
			const counts = await executionCounts(db, workflowId, state.afterId);
			const markers = await markerCounts(db, workflowId, state.afterId, prefix);
			const accepted = state.results.filter(ok2xx).length;
			const lost = DELIVERIES - [...markers.values()].filter((n) => n >= 1).length;
			const duplicated = [...markers.values()].filter((n) => n > 1).length;
			const times = state.results.map((r) => r.ms).sort((a, b) => a - b);
			const [p50, p95, max] = [
				times[Math.floor(DELIVERIES * 0.5)],
				times[Math.floor(DELIVERIES * 0.95)],
				times[DELIVERIES - 1],
			];
			// Our trigger must answer within the service's wait (spec: "waits up to 10 seconds", else it
			// redelivers). n8n's own Webhook node is only the yardstick: for it, exactly one execution
			// per delivery is asserted, and answers later than 10 s are a figure, not a failure.
			check(
				reference
					? `queue load: ${DELIVERIES} ${name} (reference), ${AT_A_TIME} at a time: exactly one successful execution each (answers later than 10 s are reported, not asserted)`
					: `queue load: ${DELIVERIES} ${name}, ${AT_A_TIME} at a time: each answered 2xx within 10 s, exactly one successful execution each`,
				(reference || accepted === DELIVERIES) &&
					(counts.success ?? 0) === DELIVERIES &&
					lost === 0 &&
					duplicated === 0 &&
					Object.keys(counts).every((st) => st === 'success'),
				`${accepted}/${DELIVERIES} 2xx (answers ${JSON.stringify(summary(state.results))}), executions ${JSON.stringify(counts)}, ${lost} lost, ${duplicated} duplicated; answer p50 ${p50} ms, p95 ${p95} ms, max ${max} ms`,
			);
			const acceptedPerSecond = (DELIVERIES / state.wallMs) * 1000;
			const processed = (DELIVERIES / state.processedMs) * 1000;
			figures[`${name}: accepted/s (webhook process answers)`] = acceptedPerSecond.toFixed(1);
			figures[`${name}: processed/s (send to last execution stopped)`] = processed.toFixed(1);
			figures[`${name}: answer p50 / p95 / max ms`] = `${p50} / ${p95} / ${max}`;
			if (accepted < DELIVERIES)
				figures[`${name}: answers not 2xx within 10 s`] =
					`${DELIVERIES - accepted} (${JSON.stringify(summary(state.results))})`;
			return { accepted: acceptedPerSecond, processed };
		},
	};
}

export async function runLoad(ctx) {
	const { check, rest, procs, figures } = ctx;
	const db = await pgClient(ctx.pg);
	try {
		// ---- both endpoints active and warmed up (30 deliveries each), then measured in turn ----
		const hook = await activateTrigger(ctx);
		await rest.activate(PLAIN_WORKFLOW.id);
		await rest.activate(PLAIN_V1_WORKFLOW.id);
		const sign = await signer(ctx, hook.id);
		const post = (url, headers) => (body, signal) =>
			fetch(url, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-service-event': 'scan.completed',
					...headers(body),
				},
				body,
				signal,
			});
		const sendSigned = post(hook.url, (body) => ({ 'x-service-signature': sign(body) }));
		const plainUrl = new URL(`webhook/${PLAIN_PATH}`, procs.webhook.url).href;
		const sendPlain = post(plainUrl, () => ({}));
		const plainV1Url = new URL(`webhook/${PLAIN_V1_PATH}`, procs.webhook.url).href;
		const sendPlainV1 = post(plainV1Url, () => ({}));
		for (const wf of [TRIGGER_WORKFLOW, PLAIN_WORKFLOW, PLAIN_V1_WORKFLOW])
			await waitUntilServed(ctx, wf.id);
		const warmAfter = await lastExecutionId(db);
		for (const [
			workflowId,
			send,
			kind,
		] of /** @type {[string, (body: string, signal?: AbortSignal) => Promise<any>, string][]} */ ([
			[TRIGGER_WORKFLOW.id, sendSigned, 'signed'],
			[PLAIN_WORKFLOW.id, sendPlain, 'plain'],
			[PLAIN_V1_WORKFLOW.id, sendPlainV1, 'plain-v1'],
		])) {
			const warm = await blast(AT_A_TIME, AT_A_TIME, (i, signal) =>
				send(deliveryBody(`qwarm-${kind}-${i}-x`), signal),
			);
			// A warm-up answer that took longer than the service waits is no failure (the measured
			// runs are checked), but its execution must be over before they start.
			const accepted = warm.results.filter(ok2xx).length;
			if (accepted < AT_A_TIME)
				ctx.figures[`warm-up of the ${kind} endpoint: answers`] = JSON.stringify(
					summary(warm.results),
				);
			await settle(db, workflowId, warmAfter, accepted);
			await waitFor(`the ${kind} warm-up's executions to end`, async () => {
				const counts = await executionCounts(db, workflowId, warmAfter);
				return !counts.new && !counts.running;
			});
		}

		const signedLoad = endpointLoad(ctx, db, {
			name: 'signed deliveries (Document Scanning Trigger)',
			workflowId: TRIGGER_WORKFLOW.id,
			prefix: 'qload-signed',
			send: sendSigned,
		});
		const plainLoad = endpointLoad(ctx, db, {
			name: 'plain Webhook node v2',
			workflowId: PLAIN_WORKFLOW.id,
			prefix: 'qload-plain',
			send: sendPlain,
			reference: true,
		});
		const plainV1Load = endpointLoad(ctx, db, {
			name: 'plain Webhook node v1 (the app-trigger path)',
			workflowId: PLAIN_V1_WORKFLOW.id,
			prefix: 'qload-plainv1',
			send: sendPlainV1,
			reference: true,
		});
		await signedLoad.send(0);
		await plainLoad.send(0);
		await plainV1Load.send(0);
		await plainV1Load.send(1);
		await plainLoad.send(1);
		await signedLoad.send(1);
		const signed = await signedLoad.report();
		const plain = await plainLoad.report();
		const plainV1 = await plainV1Load.report();
		await rest.deactivate(PLAIN_WORKFLOW.id);
		await rest.deactivate(PLAIN_V1_WORKFLOW.id);
		figures['signed trigger / plain Webhook node v2, accepted/s'] = (
			signed.accepted / plain.accepted
		).toFixed(2);
		figures['signed trigger / plain Webhook node v2, processed/s'] = (
			signed.processed / plain.processed
		).toFixed(2);
		figures['signed trigger / plain Webhook node v1, accepted/s'] = (
			signed.accepted / plainV1.accepted
		).toFixed(2);
		figures['signed trigger / plain Webhook node v1, processed/s'] = (
			signed.processed / plainV1.processed
		).toFixed(2);

		// ---- forged deliveries: all 401, no execution (a signed sentinel after them runs) ----------
		const forgedAfter = await lastExecutionId(db);
		// Well-formed signatures made with the wrong secret.
		const forgedSign = (body) => signatureHeader('not-the-webhook-secret', body);
		const forged = await blast(DELIVERIES, AT_A_TIME, (i, signal) =>
			post(hook.url, (body) => ({ 'x-service-signature': forgedSign(body) }))(
				deliveryBody(`qload-forged-${i}-x`),
				signal,
			),
		);
		const sentinel = await post(hook.url, (body) => ({ 'x-service-signature': sign(body) }))(
			deliveryBody('qload-sentinel-0-x'),
		);
		await settle(db, TRIGGER_WORKFLOW.id, forgedAfter, 1);
		const forgedCounts = await executionCounts(db, TRIGGER_WORKFLOW.id, forgedAfter);
		const forgedRan = await markerCounts(db, TRIGGER_WORKFLOW.id, forgedAfter, 'qload-forged');
		check(
			`queue load: ${DELIVERIES} forged deliveries, ${AT_A_TIME} at a time: all 401, 0 executions`,
			forged.results.every((r) => r.status === 401) &&
				sentinel.status === 200 &&
				forgedRan.size === 0 &&
				(forgedCounts.success ?? 0) === 1 &&
				Object.keys(forgedCounts).length === 1,
			`${forged.results.filter((r) => r.status === 401).length}/${DELIVERIES} answered 401 (${forged.perSecond.toFixed(1)}/s); executions after them: ${JSON.stringify(forgedCounts)} (the signed sentinel only)`,
		);
		figures['forged deliveries: rejected/s'] = forged.perSecond.toFixed(1);
		await deactivateTrigger(ctx);

		// ---- 100 uploads in one execution on a worker -----------------------------------------------
		const before = await usedScans(ctx);
		const t = Date.now();
		const execId = await rest.runManually(BATCH_LOAD_WORKFLOW.id, 'Start');
		const exec = await rest.waitForExecution(execId, 300_000);
		const ms = Date.now() - t;
		const out = nodeOutput(exec, 'Upload');
		const used = (await usedScans(ctx)) - before;
		const ids = new Set(out.map((s) => s.id));
		check(
			'queue load: 100 uploads in one execution on a worker: one credit each, 100 items out',
			exec.status === 'success' &&
				out.length === 100 &&
				ids.size === 100 &&
				used === 100 &&
				Boolean(workerOf(ctx, execId)),
			`execution ${execId} ${exec.status} on ${workerOf(ctx, execId) ?? 'no worker'}: ${out.length} items, ${ids.size} distinct scans, ${used} credits, ${ms} ms`,
		);
		figures['100 uploads in one execution: run time (manual run to finished)'] =
			`${(ms / 1000).toFixed(1)} s (${((100 / ms) * 1000).toFixed(1)} uploads/s)`;
	} finally {
		await db.end();
	}
}
