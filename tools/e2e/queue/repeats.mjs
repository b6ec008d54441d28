// Queue mode: a delivery sent again a few seconds later (issue 38 §2), with the shipped example
// examples/scan-events.json (Remove Duplicates on `deliveryKey` right after the trigger), with
// two webhook processes side by side on one database (a second one, `webhook2`, is started here
// on a port of its own; both serve the trigger's path, as behind a load balancer).
//
// Each of a few scans' deliveries runs; once its execution finished, the same bytes go to the
// other webhook process and the service sends it once more signed with a new timestamp. Every
// copy is answered 200 {"received":true} and runs (delivery is at least once), with the same
// deliveryKey; the effect is counted at the sink: "Drop repeated deliveries" passes the item in
// one execution only, so "Book the document" gets each result once.
import { besideOf } from './processes.mjs';
import {
	activateTrigger,
	control,
	deactivateTrigger,
	waitFor,
	waitUntilServed,
	waitUntilVerifying,
} from './checks.mjs';
import { importExample } from './workflows.mjs';
import { deliveryKeyOf } from '../delivery-key.mjs';
import { nodeOutput } from '../../n8n/rest.mjs';

const FILE = 'scan-events.json';
const ID = 'docscanQueueEvnt';
const TRIGGER = 'Document Scanning Trigger';
const DROP = 'Drop repeated deliveries';
const BOOK = 'Book the document (replace me)';
const SCANS = 3;

export async function runRepeatChecks(ctx) {
	const { check, procs, rest } = ctx;
	const example = await importExample(ctx, FILE, ID);
	const webhookId = example.nodes.find((n) => n.name === TRIGGER)?.webhookId;
	const second = await besideOf(procs.webhook, ctx.tmp, 'webhook2', ctx.nextPort);
	try {
		second.start(ctx.verbose);
		const hook = await activateTrigger(ctx, ID, webhookId);
		await Promise.all([second.waitReady(), waitUntilServed(ctx, ID)]);
		const urls = [hook.url, hook.url.replace(procs.webhook.url, second.url)];
		await waitUntilVerifying(urls);

		/** The finished executions whose trigger item carries `key`, oldest first. */
		const seen = new Map();
		const executionsOf = async (key) => {
			const out = [];
			for (const e of await rest.executions(ID, 100)) {
				if (['new', 'running', 'waiting'].includes(e.status) || !e.stoppedAt) continue;
				if (!seen.has(e.id)) seen.set(e.id, await rest.execution(e.id));
				const full = seen.get(e.id);
				if (nodeOutput(full, TRIGGER)[0]?.deliveryKey === key) out.push(full);
			}
			return out.sort((a, b) => Number(a.id) - Number(b.id));
		};
		const runsOf = (key, count) =>
			waitFor(`${count} finished executions with ${key}`, async () => {
				const runs = await executionsOf(key);
				return runs.length >= count ? runs : undefined;
			});

		const results = [];
		for (let i = 0; i < SCANS; i++) {
			const [scanId] = (await control(ctx, 'POST', '/scans', { count: 1 }))?.ids ?? [];
			const first = await control(ctx, 'POST', '/deliver', {
				webhookId: hook.id,
				event: 'scan.completed',
				scanId,
			});
			const key = deliveryKeyOf(first.body);
			await runsOf(key, 1);
			// Its run finished: the same bytes to the other process, and the service's restamp.
			const res = await fetch(urls[1], {
				method: 'POST',
				headers: first.headers,
				body: first.body,
			});
			const same = { status: res.status, text: (await res.text()).trim() };
			const index = ((await control(ctx, 'GET', '/deliveries')) ?? []).findIndex(
				(d) => d.webhookId === hook.id && d.scanId === scanId && d.repeatOf === undefined,
			);
			const restamped = (
				await control(ctx, 'POST', '/deliveries/repeat', { index, restamp: true })
			)?.[0];
			const runs = await runsOf(key, 3);
			results.push({
				key,
				answers: [first.status, `${same.status} ${same.text}`, restamped?.status],
				runs: runs.map((run) => run.status),
				passed: runs.map((run) => nodeOutput(run, DROP).length),
				booked: runs.reduce((n, run) => n + nodeOutput(run, BOOK).length, 0),
			});
		}
		check(
			`queue: the example "${example.name}": each of ${SCANS} deliveries sent again once its run finished (the same bytes to the other webhook process, and signed again with a new timestamp): all answered 200 and run; Remove Duplicates passes each result once, so the sink gets each once`,
			results.length === SCANS &&
				results.every(
					(r) =>
						r.answers.join() === '200,200 {"received":true},200' &&
						r.runs.join() === 'success,success,success' &&
						r.passed.join() === '1,0,0' &&
						r.booked === 1,
				),
			results
				.map(
					(r) =>
						`${r.key}: answers ${r.answers.join(' / ')}, executions ${r.runs.join(' ')}, "${DROP}" passed ${r.passed.join('+')}, booked ${r.booked}`,
				)
				.join('; '),
		);
	} finally {
		await deactivateTrigger(ctx, ID, webhookId).catch(() => undefined);
		await second.stop();
	}
}
