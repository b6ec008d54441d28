// Queue mode: each result's effect once at the sink, and each scan's latest result (issue 38 §2),
// with the shipped example examples/deliveries-once-into-postgres.json, on the queue run's
// PostgreSQL (its own tables). Effects are counted at the sink (the example's tables), not as
// executions.
//
// 1. The trigger delivers at least once: two webhook processes (a second one, `webhook3`, is
//    started here beside the first, as behind a load balancer) take the same delivery at the same
//    moment, and a burst of deliveries is followed by a repeat of each to the other process. All
//    run; the example inserts each result keyed on `deliveryKey` (`ON CONFLICT DO NOTHING
//    RETURNING`) and books only inserted rows in `erp_bookings`: every result booked exactly once.
// 2. A result that returns: one scan failed → completed → failed, three signed deliveries with
//    increasing timestamps (the third the first's body with a newer timestamp, so the first's
//    deliveryKey), then the second's bytes once more. The example's `scan_latest` row (upserted
//    by scan ID, only by a newer one: these scans are not at the sandbox, so the full-scan read
//    fails and the signed timestamp decides) ends on failed, as of the third's time; the ERP has
//    the failed result and the completed one, each once.
import { pgClient } from './services.mjs';
import { besideOf } from './processes.mjs';
import {
	activateTrigger,
	deactivateTrigger,
	postSigned,
	signer,
	waitFor,
	waitUntilServed,
	waitUntilVerifying,
} from './checks.mjs';
import { importExample } from './workflows.mjs';
import { localExample } from '../../n8n/local.mjs';
import { deliveryKeyOf } from '../delivery-key.mjs';
import { runDataOf } from '../../n8n/rest.mjs';

const FILE = 'deliveries-once-into-postgres.json';
const ID = 'docscanQueueOnce';
const PAIRS = 5;
const BURST = 20;
const BURST_AT_ONCE = 10;

/** The example's Postgres credential with the run's database. */
function postgresCredential(ctx, example) {
	const postgres = example.nodes.find((n) => n.credentials?.postgres).credentials.postgres;
	return {
		...postgres,
		type: 'postgres',
		data: {
			host: ctx.pg.host,
			port: ctx.pg.port,
			database: ctx.pg.database,
			user: ctx.pg.user,
			password: 'trust',
			ssl: 'disable',
		},
	};
}

/** Waits until `count` executions of the example have finished in all. */
async function finished(db, count) {
	await waitFor(
		`${count} finished executions of the example`,
		async () =>
			Number(
				(
					await db.query(
						`select count(*) as n from execution_entity
						  where "workflowId" = $1 and status not in ('new', 'running', 'waiting')`,
						[ID],
					)
				).rows[0].n,
			) >= count,
		180_000,
	);
}

export async function runOnceChecks(ctx) {
	const { check, rest, procs, figures } = ctx;
	const db = await pgClient(ctx.pg);
	const example = await importExample(ctx, FILE, ID, [postgresCredential(ctx, localExample(FILE))]);
	// The example's "Create the tables" branch, run here directly on the run's database.
	const create = example.nodes.find((n) => n.name === 'Create the three tables');
	await db.query(create.parameters.query);
	const second = await besideOf(procs.webhook, ctx.tmp, 'webhook3', ctx.nextPort);
	const webhookId = example.nodes.find((n) => n.webhookId)?.webhookId;
	try {
		second.start(ctx.verbose);
		const hook = await activateTrigger(ctx, ID, webhookId);
		await Promise.all([second.waitReady(), waitUntilServed(ctx, ID)]);
		const sign = await signer(ctx, hook.id);
		const urls = [hook.url, hook.url.replace(procs.webhook.url, second.url)];
		await waitUntilVerifying(urls);
		const post = async (p, body) => {
			const res = await postSigned(urls[p], sign, body);
			return { status: res.status, text: await res.text() };
		};
		const received = (a) => a.status === 200 && /^\{"received":true\}$/.test(a.text.trim());
		let scanId = 5_000_000;
		const bodyFor = (marker) =>
			JSON.stringify({
				event: 'scan.completed',
				timestamp: new Date().toISOString(),
				data: {
					scan_id: (scanId += 1),
					filename: `${marker}.ds-0123456789ab.pdf`,
					template_id: 1,
					status: 'completed',
					extracted_data: { invoice_number: marker },
				},
			});

		// ---- 1. copies at once, and a burst with a repeat of each -------------------------------
		const answers = [];
		const sent = [];
		for (let i = 0; i < PAIRS; i++) {
			const body = bodyFor(`qonce-pair-${i}`);
			sent.push(body);
			answers.push(...(await Promise.all([post(0, body), post(1, body)])));
		}
		const burst = Array.from({ length: BURST }, (_, i) => bodyFor(`qonce-burst-${i}`));
		sent.push(...burst);
		for (let from = 0; from < BURST; from += BURST_AT_ONCE)
			answers.push(
				...(await Promise.all(
					burst.slice(from, from + BURST_AT_ONCE).map((body, k) => post((from + k) % 2, body)),
				)),
			);
		for (let i = 0; i < BURST; i++) answers.push(await post((i + 1) % 2, burst[i]));
		const keys = sent.map(deliveryKeyOf);

		// Every delivery ran (at least once); all have finished before the sink is read.
		await finished(db, answers.length);
		const booked = new Map(
			(
				await db.query(
					'select delivery_key, count(*)::int as n from erp_bookings group by delivery_key',
				)
			).rows.map((r) => [r.delivery_key, r.n]),
		);
		const doubled = [...booked.values()].filter((n) => n > 1).length;
		const names = (
			await db.query('select original_filename from scan_results where delivery_key = $1', [
				keys[0],
			])
		).rows[0]?.original_filename;
		const statuses = (
			await db.query(
				`select status, count(*)::int as n from execution_entity where "workflowId" = $1 group by status`,
				[ID],
			)
		).rows.map((r) => `${r.n} ${r.status}`);
		const errored = (await rest.executions(ID, 50)).find((e) => e.status === 'error');
		const failure = errored
			? Object.entries(runDataOf(await rest.execution(errored.id)))
					.map(([node, runs]) => `${node}: ${runs?.[0]?.error?.message ?? 'ok'}`)
					.join('; ')
			: undefined;
		check(
			`queue: the example "${example.name}": copies at once to both webhook processes (${PAIRS} pairs) and a repeat of each of ${BURST} deliveries sent ${BURST_AT_ONCE} at a time: all ${answers.length} answered 200 and run, every result booked in the ERP exactly once (0 doubled effects)`,
			answers.every(received) &&
				keys.every((key) => booked.get(key) === 1) &&
				booked.size === keys.length &&
				names === 'qonce-pair-0.pdf' &&
				!errored,
			`${answers.length} deliveries (${answers.filter(received).length} answered {"received":true}), executions: ${statuses.join(', ')}; ${booked.size} of ${keys.length} results booked, ${doubled} doubled; original_filename ${names}${failure ? `; an error: ${failure}` : ''}`,
		);
		figures[`sink example: deliveries for ${keys.length} results (copies at once, repeats)`] =
			`${answers.length}, each ran, ${doubled} doubled effects at the sink`;

		// ---- 2. a result that returns: failed → completed → failed, then the second once more ----
		const scan = (scanId += 1);
		const signedAt = Date.now() - 60_000;
		const failed = (at) =>
			JSON.stringify({
				event: 'scan.failed',
				timestamp: new Date(at).toISOString(),
				data: {
					scan_id: scan,
					filename: 'qonce-returning.ds-0123456789ab.pdf',
					template_id: 1,
					status: 'failed',
					error_message: 'The document could not be read',
				},
			});
		const completed = JSON.stringify({
			event: 'scan.completed',
			timestamp: new Date(signedAt + 1_000).toISOString(),
			data: {
				scan_id: scan,
				filename: 'qonce-returning.ds-0123456789ab.pdf',
				template_id: 1,
				status: 'completed',
				extracted_data: { invoice_number: 'qonce-returning' },
			},
		});
		const steps = [failed(signedAt), completed, failed(signedAt + 2_000), completed];
		const stepAnswers = [];
		// One after another, each once its execution has finished: the order the sink sees.
		for (const [i, body] of steps.entries()) {
			stepAnswers.push(await post(i % 2, body));
			await finished(db, answers.length + i + 1);
		}
		const latest = (await db.query('select * from scan_latest where scan_id = $1', [scan])).rows[0];
		const bookings = (
			await db.query('select status from erp_bookings where scan_id = $1 order by id', [scan])
		).rows.map((r) => r.status);
		check(
			`queue: the example "${example.name}": a scan's result failed → completed → failed (signed in that order), then the completed delivery once more after the third: all run; its latest-result row ends on failed, signed at the third's time, and the ERP has the failed and the completed result, each once`,
			stepAnswers.every(received) &&
				latest?.status === 'failed' &&
				new Date(latest?.as_of).getTime() === signedAt + 2_000 &&
				bookings.join() === 'failed,completed',
			`answers ${stepAnswers.map((a) => a.status).join(' ')}; scan_latest: ${latest ? `${latest.status} as of ${new Date(latest.as_of).toISOString()}` : 'none'}; erp_bookings: ${bookings.join(', ') || 'none'}`,
		);
	} finally {
		// 2.x deletes its webhook after the call returns; later parts pick the trigger's.
		await deactivateTrigger(ctx, ID, webhookId).catch(() => undefined);
		await second.stop();
		await db.end();
	}
}
