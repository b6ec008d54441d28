// Faults in queue mode: a worker killed in the middle of a batch of uploads (then the batch is
// run again with "If Already Uploaded" = "Return Existing Scan"), and Redis restarted while idle.
import { lastExecutionId } from './load.mjs';
import { replacement } from './processes.mjs';
import { nodeOutput } from '../../n8n/rest.mjs';
import { pgClient } from './services.mjs';
import {
	activateTrigger,
	control,
	deactivateTrigger,
	deliveryBody,
	postSigned,
	signer,
	usedScans,
	waitFor,
	waitUntilServed,
	workerOf,
} from './checks.mjs';
import { BATCH_FAULT_WORKFLOW, TRIGGER_WORKFLOW } from './workflows.mjs';

/** How many of the batch's uploads the service has charged when the worker is killed. */
const KILL_AFTER = 25;

/** `parts`: kill (a worker killed mid-batch), redis (Redis restarted while idle). */
export async function runFaults(ctx, parts = new Set(['kill', 'redis'])) {
	if (parts.has('kill')) await workerKilledMidBatch(ctx);
	if (parts.has('redis')) await redisRestartedWhileIdle(ctx);
}

async function workerKilledMidBatch(ctx) {
	const { check, rest, procs, figures } = ctx;

	// ---- kill the worker running a batch, run the batch again ----------------------------------
	let t = Date.now();
	// The node counts the service's 200 uploads per rolling hour before a batch: the earlier parts'
	// uploads leave the hour first (the sandbox's clock is virtual).
	await control(ctx, 'POST', '/clock', { advanceMs: 61 * 60_000 });
	const before = await usedScans(ctx);
	// Slow answers from the service, so the kill lands in the middle of the batch.
	await control(ctx, 'POST', '/options', { latencyMs: 150 });
	const killedId = await rest.runManually(BATCH_FAULT_WORKFLOW.id, 'Start');
	const victim = await waitFor(
		`the batch (execution ${killedId}) to be ${KILL_AFTER} uploads in`,
		async () => {
			const worker = procs.workers.find((w) => w.ranExecution(killedId));
			if (worker && (await usedScans(ctx)) - before >= KILL_AFTER) return worker;
			// A batch that ended before the kill could land says why, instead of a timeout.
			const ended = worker?.finishedExecution(killedId) && (await rest.execution(killedId));
			if (ended)
				throw new Error(
					`the batch (execution ${killedId}) ended with ${(await usedScans(ctx)) - before} uploads charged, before the kill: ${ended.status} ${JSON.stringify(ended).slice(0, 3000)}`,
				);
			return undefined;
		},
		120_000,
	);
	await victim.kill();
	const chargedAtKill = (await usedScans(ctx)) - before;
	await control(ctx, 'POST', '/options', { latencyMs: 0 });
	// A fresh worker in its place (same settings, new home), as a fresh container would start.
	const index = procs.workers.indexOf(victim);
	procs.workers[index] = replacement(victim, ctx.tmp, `worker${procs.workers.length + 1}`).start(
		ctx.verbose,
	);
	await procs.workers[index].waitReady();

	const rerunId = await rest.runManually(BATCH_FAULT_WORKFLOW.id, 'Start');
	const rerun = await rest.waitForExecution(rerunId, 300_000);
	const out = nodeOutput(rerun, 'Upload');
	const ids = new Set(out.map((s) => s.id));
	const names = new Set(out.map((s) => s.filename));
	// n8n's own recovery decides what becomes of the killed execution: wait for its decision
	// (a bounded time), then count the credits once more, as a late re-run would spend them.
	const killed = await waitFor(
		`n8n to settle execution ${killedId}`,
		async () => {
			const e = await rest.execution(killedId).catch(() => undefined);
			return e && !['new', 'running'].includes(e.status) ? e : undefined;
		},
		90_000,
	).catch(() => ({ status: 'still running after 90 s' }));
	const used = (await usedScans(ctx)) - before;
	check(
		'queue fault: a worker killed mid-batch, the batch run again with "Return Existing Scan": no document charged twice',
		rerun.status === 'success' &&
			out.length === 100 &&
			ids.size === 100 &&
			names.size === 100 &&
			used === 100 &&
			chargedAtKill < 100,
		`killed ${victim.name} with ${chargedAtKill}/100 charged; re-run ${rerunId} ${rerun.status} on ${workerOf(ctx, rerunId) ?? 'no worker'}: ${out.length} items, ${ids.size} distinct scans; credits used in all ${used}; killed execution ${killedId}: ${killed.status} (n8n's decision); ${Date.now() - t} ms`,
	);
	figures['worker kill: charged at kill / credits after re-run'] = `${chargedAtKill} / ${used}`;
}

// ---- restart Redis while idle: the next delivery still runs ----------------------------------
async function redisRestartedWhileIdle(ctx) {
	const { check } = ctx;
	const t = Date.now();
	const hook = await activateTrigger(ctx);
	const sign = await signer(ctx, hook.id);
	await waitUntilServed(ctx, TRIGGER_WORKFLOW.id);
	// Counted in the database: n8n's REST list is capped, and there are hundreds by now.
	const db = await pgClient(ctx.pg);
	const afterId = await lastExecutionId(db);
	await ctx.redis.restart();
	const body = deliveryBody('qfault-after-redis-0-x');
	const res = await postSigned(hook.url, sign, body, 30_000).catch((err) => ({
		status: `no answer (${err.name})`,
	}));
	const ran = await waitFor(
		'the delivery after the Redis restart to run',
		async () =>
			(
				await db.query(
					`select id from execution_entity where "workflowId" = $1 and id > $2 and status = 'success'`,
					[TRIGGER_WORKFLOW.id, afterId],
				)
			).rows[0],
		90_000,
	)
		.catch(() => undefined)
		.finally(() => db.end());
	check(
		'queue fault: Redis restarted while idle, the next signed delivery still runs on a worker',
		res.status === 200 && Boolean(ran),
		`HTTP ${res.status}, execution ${ran?.id ?? 'none'} on ${ran ? (workerOf(ctx, ran.id) ?? 'no worker') : '-'}, ${Date.now() - t} ms`,
	);
	await deactivateTrigger(ctx);
}
