// The poll trigger in queue mode: n8n runs pollers on main (the leader main when there are
// several), and each poll that finds finished scans starts an execution the workers run. Checked:
// - activation polls at once on main and emits no history (scans finished before it);
// - every scan that finishes is in exactly one successful execution, run on a worker;
// - main stopped, scans finishing meanwhile, main started again: those scans come out once after
//   the restart, and none of the earlier ones comes out again (the poll state lives in the
//   workflow's static data in PostgreSQL, not in main's memory).
// Polls are at most once a minute (n8n's floor), so this part waits for up to two scheduled polls.
import { nodeOutput } from '../../n8n/rest.mjs';
import { pgClient } from './services.mjs';
import { lastExecutionId } from './load.mjs';
import { api, control, sandboxOf, waitFor, workerOf } from './checks.mjs';
import { respawn } from './processes.mjs';
import { POLL_WORKFLOW } from './workflows.mjs';

/** n8n polls at most once a minute: a scheduled poll comes within this, with room for a busy machine. */
const SCHEDULED_POLL_MS = 100_000;

/** How many GET /scans the sandbox has answered (the poll trigger's only call). */
async function scanPolls(ctx) {
	return sandboxOf(ctx).listingReads();
}

async function upload(ctx, filename) {
	return sandboxOf(ctx).uploadPdf(filename);
}

async function finish(ctx, ids) {
	return Promise.all(
		ids.map((id) =>
			waitFor(`scan ${id} to finish`, async () => {
				const scan = (await api(ctx, `/scans/${id}`)).body;
				return ['completed', 'validation_failed', 'failed'].includes(scan?.status)
					? scan.status
					: undefined;
			}),
		),
	);
}

/** The poll workflow's executions after `afterId`: id, status, and the file names in their data. */
async function pollExecutions(db, afterId, names) {
	const { rows } = await db.query(
		`select e.id, e.status, d.data from execution_entity e join execution_data d on d."executionId" = e.id
		  where e."workflowId" = $1 and e.id > $2 order by e.id`,
		[POLL_WORKFLOW.id, afterId],
	);
	return rows.map((r) => ({
		id: String(r.id),
		status: r.status,
		names: names.filter((n) => r.data.includes(n)),
	}));
}

/** How many executions carry each name. */
function countsOf(list, names) {
	return names.map((n) => list.filter((e) => e.names.includes(n)).length);
}

export async function runPollChecks(ctx) {
	const { check, rest, procs } = ctx;
	const stamp = Date.now().toString(36);
	const db = await pgClient(ctx.pg);
	try {
		const afterId = await lastExecutionId(db);
		// ---- history: finished before the first activation, never emitted ------------------------
		const seeded = await control(ctx, 'POST', '/scans', {
			count: 2,
			status: 'completed',
			template_id: 1,
		});
		const history = (seeded?.ids ?? []).map((id) => `seeded-scan-${id}.pdf`);
		let t = Date.now();
		const pollsBefore = await scanPolls(ctx);
		await rest.activate(POLL_WORKFLOW.id);
		// 2.x activates after the REST call returns: wait for the activation's own poll.
		const firstPoll = await waitFor(
			'main’s poll at activation',
			async () => (await scanPolls(ctx)) > pollsBefore,
			60_000,
		).catch(() => false);
		check(
			'queue poll: activating the poll trigger polls at once (on main)',
			firstPoll === true && history.length === 2,
			`${Date.now() - t} ms`,
		);

		// ---- scans finishing while two workers run the executions ---------------------------------
		t = Date.now();
		const round1 = [
			`qpoll-${stamp}-1.pdf`,
			`qpoll-${stamp}-2.pdf`,
			`qpoll-${stamp}-fail-3.pdf`,
			`qpoll-${stamp}-4.pdf`,
		];
		await finish(ctx, await Promise.all(round1.map((n) => upload(ctx, n))));
		const all = [...history, ...round1];
		let list = await waitFor(
			'a scheduled poll to emit the first scans',
			async () => {
				const now = await pollExecutions(db, afterId, all);
				return countsOf(now, round1).every((c) => c >= 1) &&
					now.every((e) => !['new', 'running'].includes(e.status))
					? now
					: undefined;
			},
			SCHEDULED_POLL_MS,
		).catch(() => pollExecutions(db, afterId, all));
		const workers1 = list.map((e) => workerOf(ctx, e.id) ?? 'no worker');
		check(
			'queue poll: each scan finished while active is in exactly one execution, run on a worker; history in none',
			countsOf(list, round1).every((c) => c === 1) &&
				countsOf(list, history).every((c) => c === 0) &&
				list.length > 0 &&
				list.every((e) => e.status === 'success') &&
				workers1.every((w) => w !== 'no worker'),
			`per scan ${countsOf(list, round1).join('/')}, history ${countsOf(list, history).join('/')}; executions ${list.map((e, i) => `${e.id} ${e.status} on ${workers1[i]}`).join(', ')}; ${((Date.now() - t) / 1000).toFixed(0)} s`,
		);
		const emitted = list.length;
		const items = list.length
			? nodeOutput(await rest.execution(list[0].id), 'Poll scans').length
			: 0;
		ctx.figures['poll trigger: items in the first poll execution'] = String(items);

		// ---- main down while scans finish, then up again: those come out once, nothing replays ----
		t = Date.now();
		await procs.main.stop();
		const round2 = [`qpoll-${stamp}-5.pdf`, `qpoll-${stamp}-fail-6.pdf`, `qpoll-${stamp}-7.pdf`];
		await finish(ctx, await Promise.all(round2.map((n) => upload(ctx, n))));
		procs.main = respawn(procs.main).start(ctx.verbose);
		await procs.main.waitReady();
		await rest.signIn();
		const names = [...all, ...round2];
		list = await waitFor(
			'the scans finished while main was down to come out',
			async () => {
				const now = await pollExecutions(db, afterId, names);
				return countsOf(now, round2).every((c) => c >= 1) &&
					now.every((e) => !['new', 'running'].includes(e.status))
					? now
					: undefined;
			},
			SCHEDULED_POLL_MS + 60_000,
		).catch(() => pollExecutions(db, afterId, names));
		const workers2 = list.slice(emitted).map((e) => workerOf(ctx, e.id) ?? 'no worker');
		check(
			'queue poll: main restarted while scans finished: each comes out once after, none of the earlier ones again',
			countsOf(list, round2).every((c) => c === 1) &&
				countsOf(list, round1).every((c) => c === 1) &&
				countsOf(list, history).every((c) => c === 0) &&
				list.every((e) => e.status === 'success') &&
				workers2.length > 0 &&
				workers2.every((w) => w !== 'no worker'),
			`after the restart: per scan ${countsOf(list, round2).join('/')}, earlier ${countsOf(list, round1).join('/')}, history ${countsOf(list, history).join('/')}; new executions ${list
				.slice(emitted)
				.map((e, i) => `${e.id} ${e.status} on ${workers2[i]}`)
				.join(', ')}; ${((Date.now() - t) / 1000).toFixed(0)} s`,
		);
		const used = new Set([...workers1, ...workers2].filter((w) => w !== 'no worker'));
		ctx.figures['poll trigger: executions / workers that ran them'] =
			`${list.length} / ${[...used].join(', ') || 'none'}`;
		await rest.deactivate(POLL_WORKFLOW.id);
	} finally {
		await db.end();
	}
}
