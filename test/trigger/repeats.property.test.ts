/**
 * Property-based tests (fast-check, fixed seeds) of "one execution per delivery" for the
 * webhook trigger (issue 25, section 8): random runs of deliveries and repeats through the
 * sandbox, over real HTTP, to n8n-like webhook processes (webhook-processes.ts: static data
 * read per request, written back after).
 *
 * Steps: a scan's event sent (scan.completed or scan.failed), a recorded delivery repeated
 * (the same bytes, or signed again with a new timestamp; to either process), a crafted resend
 * with scan_id written as a string, n8n restarted.
 * - One after another (each step answered and written back before the next): every event of a
 *   scan runs exactly once; its first delivery is answered {"received":true}, every other
 *   {"received":true,"duplicate":true}.
 * - Any steps at the same moment (writes held until the group ends): no event is lost, none
 *   runs more often than it was sent, and every execution carries its result's key.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { type Sandbox, startSandbox } from '../../sandbox/server';
import { signatureHeader } from '../../sandbox/signing';
import { ALL_EVENTS } from '../support/fixtures';
import { runs } from '../support/property-runs';
import { type Receiver, startReceiver } from '../support/receiver';
import { buildEventBody } from '../../sandbox/engine/deliveries';
import { itemsOf, keyOf, makeHarness, postRaw } from './helpers';
import { StaticDataDatabase, WebhookProcess } from './webhook-processes';

const SCANS = 3;

type Step =
	| { kind: 'send'; scan: number; event: 'scan.completed' | 'scan.failed' }
	| { kind: 'repeat'; of: number; restamp: boolean; process: number }
	| { kind: 'stringId'; scan: number }
	| { kind: 'restart' };

const step: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('send' as const),
			scan: fc.nat(SCANS - 1),
			event: fc.constantFrom('scan.completed' as const, 'scan.failed' as const),
		}),
	},
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('repeat' as const),
			of: fc.nat(20),
			restamp: fc.boolean(),
			process: fc.nat(1),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant('stringId' as const), scan: fc.nat(SCANS - 1) }),
	},
	{ weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

let sandbox: Sandbox;
let receiver: Receiver;
let processes: WebhookProcess[];
let route = 0;

beforeAll(async () => {
	sandbox = await startSandbox({ allowInsecureWebhookUrls: true, processingDelayMs: 20 });
	receiver = await startReceiver(() => processes[route]);
});
afterAll(async () => {
	await receiver.close();
	await sandbox.close();
});

interface Run {
	database: StaticDataDatabase;
	webhookId: number;
	secret: string;
	url: string;
	scanIds: number[];
	/** The delivery key of every delivery sent, in order. */
	sent: string[];
}

async function start(): Promise<Run> {
	sandbox.control.reset();
	receiver.results.splice(0);
	route = 0;
	const database = new StaticDataDatabase();
	const harnessFor = (staticData: IDataObject) =>
		makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS }, staticData);
	processes = [new WebhookProcess(database, harnessFor), new WebhookProcess(database, harnessFor)];
	await processes[0].activate();
	const stored = database.read()['node:Document Scanning Trigger'] as IDataObject;
	return {
		database,
		webhookId: stored.webhookId as number,
		secret: String(stored.webhookSecret),
		url: String(stored.webhookUrl),
		scanIds: sandbox.control.seedScans({ count: SCANS }),
		sent: [],
	};
}

/** Runs one step; the key of what it sent goes to `run.sent` (a restart sends nothing). */
async function play(run: Run, s: Step): Promise<void> {
	const keyOfBody = (body: string) => {
		const parsed = JSON.parse(body) as IDataObject;
		return keyOf(parsed, String((parsed.data as IDataObject).scan_id));
	};
	if (s.kind === 'restart') {
		processes = processes.map(
			() =>
				new WebhookProcess(run.database, (staticData) =>
					makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS }, staticData),
				),
		);
		return;
	}
	if (s.kind === 'send') {
		const record = await sandbox.control.deliver(run.webhookId, s.event, run.scanIds[s.scan]);
		run.sent.push(keyOfBody(record.body));
		return;
	}
	if (s.kind === 'repeat') {
		const count = sandbox.control.deliveries().length;
		if (count === 0) return;
		route = s.process;
		const [record] = await sandbox.control.repeatDelivery({
			index: s.of % count,
			restamp: s.restamp,
		});
		route = 0;
		run.sent.push(keyOfBody(record.body));
		return;
	}
	// The scan's completed body as the service builds it, its scan_id written as a string.
	const scan = sandbox.control.getScan(run.scanIds[s.scan])!;
	const body = buildEventBody('scan.completed', scan, Date.now()) as IDataObject;
	const raw = JSON.stringify({
		...body,
		data: { ...(body.data as IDataObject), scan_id: String(scan.id) },
	});
	run.sent.push(keyOf(body, String(scan.id)));
	await postRaw(run.url, raw, { 'X-Service-Signature': signatureHeader(run.secret, raw) });
}

/** How many executions each delivery key started. */
function executionsByKey(): Map<string, number> {
	const counts = new Map<string, number>();
	for (const result of receiver.results) {
		if (result.workflowData === undefined) continue;
		const key = String(itemsOf(result)[0].deliveryKey);
		counts.set(key, (counts.get(key) ?? 0) + 1);
	}
	return counts;
}

describe('one execution per delivery', () => {
	test('one step after another: every event of a scan runs exactly once, every resend is answered 200 as a duplicate', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
				const run = await start();
				for (const s of steps) {
					await play(run, s);
					// The receiver records a request once its static data is written back.
					await receiver.waitFor(run.sent.length);
				}
				const distinct = [...new Set(run.sent)];
				expect(Object.fromEntries(executionsByKey())).toEqual(
					Object.fromEntries(distinct.map((key) => [key, 1])),
				);
				run.sent.forEach((key, index) => {
					const first = run.sent.indexOf(key) === index;
					expect(receiver.results[index]).toMatchObject({
						status: 200,
						body: first ? { received: true } : { received: true, duplicate: true },
					});
				});
			}),
			runs(250525, 50),
		);
	});

	test('steps at the same moment (writes held): nothing lost, nothing run more often than sent, every item keyed', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.array(step, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
				async (groups) => {
					const run = await start();
					for (const group of groups) {
						const release = run.database.holdWrites();
						for (const s of group) await play(run, s);
						release();
						await receiver.waitFor(run.sent.length);
					}
					const sentCounts = new Map<string, number>();
					for (const key of run.sent) sentCounts.set(key, (sentCounts.get(key) ?? 0) + 1);
					const ran = executionsByKey();
					for (const [key, times] of sentCounts) {
						expect(ran.get(key)).toBeGreaterThanOrEqual(1);
						expect(ran.get(key)).toBeLessThanOrEqual(times);
					}
					expect([...ran.keys()].every((key) => sentCounts.has(key))).toBe(true);
					expect(receiver.results.every((r) => r.status === 200)).toBe(true);
				},
			),
			runs(250526, 50),
		);
	});
});
