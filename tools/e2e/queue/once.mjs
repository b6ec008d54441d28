// Queue mode: each result's effect once at the sink (issue 33 §4), with the shipped example
// examples/deliveries-once-into-postgres.json, on the queue run's PostgreSQL (its own tables).
//
// The trigger delivers at least once: two webhook processes (a second one, `webhook2`, is
// started here beside the first, as behind a load balancer) take the same delivery at the same
// moment, and a burst of deliveries is followed by a repeat of each to the other process. The
// example inserts each result keyed on `deliveryKey` (`ON CONFLICT DO NOTHING RETURNING`) and
// books only inserted rows in `erp_bookings`: asserted, every result booked exactly once (0
// doubled effects), whatever ran twice.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { localExample, n8nSync } from '../../n8n/local.mjs';
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
import { deliveryKeyOf } from '../delivery-key.mjs';
import { runDataOf } from '../../n8n/rest.mjs';

const FILE = 'deliveries-once-into-postgres.json';
const ID = 'docscanQueueOnce';
const PAIRS = 5;
const BURST = 20;
const BURST_AT_ONCE = 10;

/** The example with the run's ids: imported inactive, with a Postgres credential for the run's database. */
function importExample(ctx) {
	const env = ctx.procs.main.env;
	const dir = path.join(env.N8N_USER_FOLDER, 'import', 'once');
	mkdirSync(dir, { recursive: true });
	const example = localExample(FILE);
	const postgres = example.nodes.find((n) => n.credentials?.postgres).credentials.postgres;
	const credential = {
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
	writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify([credential]));
	writeFileSync(
		path.join(dir, `${ID}.json`),
		JSON.stringify({ ...example, id: ID, active: false }),
	);
	for (const [what, file] of [
		['import:credentials', 'credentials.json'],
		['import:workflow', `${ID}.json`],
	]) {
		const r = n8nSync([what, `--input=${path.join(dir, file)}`], { env });
		if (r.status !== 0 || /An error occurred/i.test(r.stdout + r.stderr))
			throw new Error(`n8n ${what} failed (exit ${r.status}): ${r.stdout}${r.stderr}`);
	}
	return example;
}

export async function runOnceChecks(ctx) {
	const { check, rest, procs, figures } = ctx;
	const db = await pgClient(ctx.pg);
	const example = importExample(ctx);
	// The example's "Create the tables" branch, run here directly on the run's database.
	const create = example.nodes.find((n) => n.name === 'Create scan_results and erp_bookings');
	await db.query(create.parameters.query);
	const second = await besideOf(procs.webhook, ctx.tmp, 'webhook3', ctx.nextPort);
	const webhookId = example.nodes.find((n) => n.webhookId)?.webhookId;
	try {
		second.start(ctx.verbose);
		const hook = await activateTrigger(ctx, ID, webhookId);
		await Promise.all([second.waitReady(), waitUntilServed(ctx, ID)]);
		const sign = await signer(ctx, hook.id);
		const base = hook.url.replace(/\?.*$/, '');
		const urls = [base, base.replace(procs.webhook.url, second.url)];
		await waitUntilVerifying(urls);
		const post = async (p, body) => {
			const res = await postSigned(urls[p], sign, body);
			return { status: res.status, ran: /"received":true}$/.test(await res.text()) };
		};
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
		const ran = answers.filter((a) => a.ran).length;
		const keys = sent.map(deliveryKeyOf);

		// Every execution that started has finished (each books at most once).
		await waitFor(
			`${ran} finished executions of the example`,
			async () =>
				Number(
					(
						await db.query(
							`select count(*) as n from execution_entity
							  where "workflowId" = $1 and status not in ('new', 'running', 'waiting')`,
							[ID],
						)
					).rows[0].n,
				) >= ran,
			180_000,
		);
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
			`queue: the example "${example.name}": copies at once to both webhook processes (${PAIRS} pairs) and a repeat of each of ${BURST} deliveries sent ${BURST_AT_ONCE} at a time: every result booked in the ERP exactly once (0 doubled effects), though ${ran - sent.length} more executions ran`,
			answers.every((a) => a.status === 200) &&
				keys.every((key) => booked.get(key) === 1) &&
				booked.size === keys.length &&
				names === 'qonce-pair-0.pdf',
			`${answers.length} deliveries, ${ran} executions for ${keys.length} results (${statuses.join(', ')}); ${booked.size} booked, ${doubled} doubled; original_filename ${names}${failure ? `; an error: ${failure}` : ''}`,
		);
		figures[
			`sink example: executions for ${keys.length} results (copies at once, bursts of repeats)`
		] = `${ran}, ${doubled} doubled effects`;
	} finally {
		// 2.x deletes both of its webhooks after the call returns; later parts pick the trigger's.
		await deactivateTrigger(ctx, ID, webhookId).catch(() => undefined);
		await second.stop();
		await db.end();
	}
}
