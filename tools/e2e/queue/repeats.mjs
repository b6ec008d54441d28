// Queue mode: a delivery sent twice (issue 25, section 4), with two webhook processes side by
// side on one database (a second one, `webhook2`, is started here on a port of its own; both
// serve the trigger's path, as behind a load balancer).
//
// 1. one after another: a delivery to one process and, once n8n has written the trigger's
//    static data back (just after the answer), the same bytes to the other and a resend signed
//    again with a new timestamp: every resend is answered 200 as a duplicate, and each delivery
//    runs exactly once (asserted);
// 2. the two cases the trigger cannot see, as figures with bounds asserted: the same bytes to
//    both processes at the same moment, and a repeat of each delivery of a burst (another
//    delivery's write back may have dropped its key). Every answer is 2xx, every execution
//    comes from an answer that was not a duplicate, and no delivery runs more than twice.
import { pgClient } from './services.mjs';
import { besideOf } from './processes.mjs';
import { lastExecutionId } from './load.mjs';
import {
	activateTrigger,
	deactivateTrigger,
	deliveryBody,
	postSigned,
	signer,
	waitFor,
	waitUntilServed,
	waitUntilVerifying,
} from './checks.mjs';
import { TRIGGER_WORKFLOW } from './workflows.mjs';
import { deliveryKeyOf } from '../delivery-key.mjs';

const SEQUENTIAL = 5;
const PAIRS = 5;
const BURST = 20;
const BURST_AT_ONCE = 10;

/** Executions of the trigger workflow after `afterId` per marker `<prefix>-<n>-x` in their data. */
async function executionsPerMarker(db, afterId, prefix) {
	const { rows } = await db.query(
		`select m[1] as marker, count(distinct e.id)::int as n
		   from execution_entity e join execution_data d on d."executionId" = e.id,
		        lateral regexp_matches(d.data, '(${prefix}-[0-9]+)-x', 'g') as m
		  where e."workflowId" = $1 and e.id > $2 and e.status = 'success'
		  group by 1`,
		[TRIGGER_WORKFLOW.id, afterId],
	);
	return new Map(rows.map((r) => [r.marker, r.n]));
}

/** Waits until `expected` executions of the trigger workflow after `afterId` are finished. */
async function settled(db, afterId, expected) {
	await waitFor(
		`${expected} finished executions of the trigger workflow`,
		async () => {
			const { rows } = await db.query(
				`select count(*)::int as n from execution_entity
				  where "workflowId" = $1 and id > $2 and status not in ('new', 'running', 'waiting')`,
				[TRIGGER_WORKFLOW.id, afterId],
			);
			return rows[0].n >= expected;
		},
		120_000,
	);
}

/** Resolves once the trigger's record in n8n's database holds the delivery key `key`. */
async function recorded(db, key) {
	await waitFor(`${key} in the trigger's static data`, async () => {
		const { rows } = await db.query('select "staticData" from workflow_entity where id = $1', [
			TRIGGER_WORKFLOW.id,
		]);
		const data = rows[0]?.staticData;
		const parsed = typeof data === 'string' ? JSON.parse(data) : data;
		return Object.values(parsed ?? {}).some(
			(node) => node && typeof node === 'object' && key in (node.recentDeliveries ?? {}),
		);
	});
}

/** A body with a fresh timestamp (the same marker and scan): a resend signed again. */
function restamped(body) {
	return JSON.stringify({ ...JSON.parse(body), timestamp: new Date().toISOString() });
}

export async function runRepeatChecks(ctx) {
	const { check, procs, figures } = ctx;
	const db = await pgClient(ctx.pg);
	const second = await besideOf(procs.webhook, ctx.tmp, 'webhook2', ctx.nextPort);
	try {
		second.start(ctx.verbose);
		const hook = await activateTrigger(ctx);
		await Promise.all([second.waitReady(), waitUntilServed(ctx, TRIGGER_WORKFLOW.id)]);
		const sign = await signer(ctx, hook.id);
		const urls = [hook.url, hook.url.replace(procs.webhook.url, second.url)];
		await waitUntilVerifying(urls);
		/** POSTs a signed body to process `p`; the answer's status and JSON. */
		const post = async (p, body) => {
			const res = await postSigned(urls[p], sign, body);
			const text = await res.text();
			let json;
			try {
				json = JSON.parse(text);
			} catch {
				json = undefined;
			}
			return {
				status: res.status,
				text: text.slice(0, 120),
				duplicate: json?.duplicate === true,
				ran: json?.received === true && json?.duplicate !== true,
			};
		};
		let scanId = 3_000_000;
		const bodyFor = (marker) => deliveryBody(marker, (scanId += 1));

		// ---- 1. one after another, across the two processes -------------------------------------
		let after = await lastExecutionId(db);
		const answers = [];
		for (let i = 0; i < SEQUENTIAL; i++) {
			const body = bodyFor(`qrepeat-seq-${i}-x`);
			answers.push(await post(i % 2, body));
			// n8n writes the static data back just after the trigger answered: the resends wait for it.
			const written = await recorded(db, deliveryKeyOf(body)).then(
				() => true,
				() => false,
			);
			if (!written)
				figures[`static data not written after delivery ${i}`] = JSON.stringify(answers.at(-1));
			answers.push(await post((i + 1) % 2, body));
			answers.push(await post(i % 2, restamped(body)));
		}
		await settled(db, after, SEQUENTIAL);
		const seq = await executionsPerMarker(db, after, 'qrepeat-seq');
		const shape = answers.map((a) =>
			a.status !== 200 ? `${a.status} ${a.text}` : a.duplicate ? 'dup' : 'ran',
		);
		check(
			`queue: a delivery sent again to the other webhook process, and signed again with a new timestamp, is answered 200 as a duplicate; each of ${SEQUENTIAL} deliveries runs once`,
			shape.join() === Array.from({ length: SEQUENTIAL }, () => 'ran,dup,dup').join() &&
				seq.size === SEQUENTIAL &&
				[...seq.values()].every((n) => n === 1),
			`answers ${shape.join(' ')}; executions per delivery ${JSON.stringify(Object.fromEntries(seq))}`,
		);

		// ---- 2a. the same bytes to both processes at the same moment --------------------------------
		after = await lastExecutionId(db);
		const pairs = [];
		for (let i = 0; i < PAIRS; i++) {
			const body = bodyFor(`qrepeat-pair-${i}-x`);
			pairs.push(await Promise.all([post(0, body), post(1, body)]));
		}
		const pairRan = pairs.map((pair) => pair.filter((a) => a.ran).length);
		await settled(
			db,
			after,
			pairRan.reduce((a, b) => a + b, 0),
		);
		const pairRuns = await executionsPerMarker(db, after, 'qrepeat-pair');
		const twice = pairRan.filter((n) => n === 2).length;
		check(
			`queue: the same delivery to both webhook processes at the same moment: both answered 200, at least one and at most two executions, exactly one per answer that was not a duplicate`,
			pairs.flat().every((a) => a.status === 200) &&
				pairRan.every((n, i) => n >= 1 && pairRuns.get(`qrepeat-pair-${i}`) === n),
			`${twice} of ${PAIRS} pairs ran twice (both requests read the record before either wrote it); executions ${JSON.stringify(Object.fromEntries(pairRuns))}`,
		);
		figures[`same delivery to both webhook processes at once: pairs that ran twice`] =
			`${twice} of ${PAIRS}`;

		// ---- 2b. a burst of deliveries, then a repeat of each -----------------------------------------
		after = await lastExecutionId(db);
		const burst = Array.from({ length: BURST }, (_, i) => bodyFor(`qrepeat-burst-${i}-x`));
		const firstAnswers = new Array(BURST);
		for (let from = 0; from < BURST; from += BURST_AT_ONCE) {
			await Promise.all(
				burst.slice(from, from + BURST_AT_ONCE).map(async (body, k) => {
					firstAnswers[from + k] = await post((from + k) % 2, body);
				}),
			);
		}
		const repeatAnswers = [];
		for (let i = 0; i < BURST; i++) repeatAnswers.push(await post((i + 1) % 2, burst[i]));
		const ranAgain = repeatAnswers.filter((a) => a.ran).length;
		await settled(db, after, BURST + ranAgain);
		const burstRuns = await executionsPerMarker(db, after, 'qrepeat-burst');
		check(
			`queue: ${BURST} deliveries, ${BURST_AT_ONCE} at a time, then each sent again: all answered 200, every delivery ran, none more than twice, exactly one execution per answer that was not a duplicate`,
			[...firstAnswers, ...repeatAnswers].every((a) => a.status === 200) &&
				firstAnswers.every((a) => a.ran) &&
				burst.every(
					(_, i) => burstRuns.get(`qrepeat-burst-${i}`) === 1 + (repeatAnswers[i].ran ? 1 : 0),
				),
			`${ranAgain} of ${BURST} repeats ran again (their key was dropped by a concurrent write back); executions ${[...burstRuns.values()].join(' ')}`,
		);
		figures[
			`repeat of each of ${BURST} deliveries sent ${BURST_AT_ONCE} at a time: repeats that ran again`
		] = `${ranAgain} of ${BURST}`;
	} finally {
		await deactivateTrigger(ctx);
		await second.stop();
		await db.end();
	}
}
