/**
 * A delivery sent twice (issue 25, section 4). The sandbox plays a service that redelivers
 * (the same bytes, or signed again with a new timestamp); n8n's webhook processes are played
 * by `WebhookProcess` (each request reads the workflow's static data when it arrives and
 * writes it back after the node answered), so what holds across requests and processes is
 * tested, not the harness's shared memory.
 *
 * Guaranteed: a repeat that arrives after the first delivery was handled starts no execution
 * and is answered 200, in any process, after a restart, and after the replay tolerance. Not
 * guaranteed, and tested as such: a repeat while the first is still being handled, and a key
 * another delivery's write back dropped; there every item carries the same `deliveryKey`.
 */
import type { IDataObject } from 'n8n-workflow';

import { isoWithOffset } from '../../sandbox/engine/clock';
import { type Sandbox, startSandbox } from '../../sandbox/server';
import { signatureHeader } from '../../sandbox/signing';
import { ALL_EVENTS } from '../support/fixtures';
import { type Receiver, startReceiver } from '../support/receiver';
import { uploadScan } from '../support/sandbox-api';
import type { WebhookCallResult } from '../support/trigger-harness';
import { itemsOf, keyOf, makeHarness, postRaw } from './helpers';
import { StaticDataDatabase, WebhookProcess } from './webhook-processes';

let sandbox: Sandbox;
let receiver: Receiver;
let database: StaticDataDatabase;
/** The webhook processes behind the receiver; requests go to `processes[route]`. */
let processes: WebhookProcess[];
let route = 0;
let webhookId: number;
let secret: string;
/** The trigger's production URL (the receiver's). */
let url: string;

beforeAll(async () => {
	sandbox = await startSandbox({ allowInsecureWebhookUrls: true, processingDelayMs: 20 });
	receiver = await startReceiver(() => processes[route]);
});
afterAll(async () => {
	await receiver.close();
	await sandbox.close();
});
beforeEach(() => {
	sandbox.control.reset();
	receiver.results.splice(0);
	route = 0;
});

/** Two webhook processes on one database, the trigger activated with `options`. */
async function activate(options: IDataObject = {}, events = ALL_EVENTS): Promise<void> {
	database = new StaticDataDatabase();
	const harnessFor = (staticData: IDataObject) =>
		makeHarness(sandbox, receiver.baseUrl, { events, options } as never, staticData);
	processes = [new WebhookProcess(database, harnessFor), new WebhookProcess(database, harnessFor)];
	await processes[0].activate();
	const stored = database.read()['node:Document Scanning Trigger'] as IDataObject;
	webhookId = stored.webhookId as number;
	secret = String(stored.webhookSecret);
	url = String(stored.webhookUrl);
}

/** n8n restarted: new processes, same database. */
function restart(): void {
	const harnessFor = (staticData: IDataObject) =>
		makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS } as never, staticData);
	processes = [new WebhookProcess(database, harnessFor), new WebhookProcess(database, harnessFor)];
}

async function result(count: number): Promise<WebhookCallResult> {
	return (await receiver.waitFor(count))[count - 1];
}

const executions = () => receiver.results.filter((r) => r.workflowData !== undefined);
/** The delivery key of the sandbox's recorded delivery `index` (as the reference states it). */
const sentKey = (index: number) => {
	const body = JSON.parse(sandbox.control.deliveries()[index].body) as IDataObject;
	const scanId = (body.data as IDataObject).scan_id;
	return keyOf(body, Number(scanId) > 0 ? String(scanId) : undefined);
};
const recorded = () =>
	(database.read()['node:Document Scanning Trigger'] as IDataObject)
		.recentDeliveries as IDataObject;

describe('a delivery sent twice starts one execution', () => {
	it('the same bytes and headers again: 200 {"received":true,"duplicate":true}, no execution, no failure counted', async () => {
		await activate();
		const scanId = await uploadScan(sandbox, 'invoice.pdf');
		const [first] = await sandbox.control.waitForDeliveries(1);
		await result(1); // handled and written back: the receiver records a request after that
		const [again] = await sandbox.control.repeatDelivery();
		await receiver.waitFor(2);

		expect(again.body).toBe(first.body);
		expect(again).toMatchObject({ status: 200, success: true, attempt: 2 });
		expect(receiver.results[1]).toEqual({
			status: 200,
			body: { received: true, duplicate: true },
			workflowData: undefined,
		});
		expect(executions()).toHaveLength(1);
		expect(itemsOf(executions()[0])[0].deliveryKey).toBe(sentKey(0));
		expect(sentKey(0)).toMatch(new RegExp(`^scan\\.completed:${scanId}:[0-9a-f]{16}$`));
		expect(sandbox.control.getWebhook(webhookId)?.failureCount).toBe(0);
		expect(Object.keys(recorded())).toEqual([sentKey(0)]);
	});

	it('signed again with a new timestamp (the other way a service may resend): the same delivery', async () => {
		await activate();
		const [scanId] = sandbox.control.seedScans({ count: 1, status: 'failed' });
		const first = await sandbox.control.deliver(webhookId, 'scan.failed', scanId);
		await result(1);
		sandbox.control.advanceClock(30_000);
		const [again] = await sandbox.control.repeatDelivery({ restamp: true });
		await receiver.waitFor(2);

		expect(JSON.parse(again.body).timestamp).not.toBe(JSON.parse(first.body).timestamp);
		expect(again.status).toBe(200);
		expect(receiver.results[1].body).toEqual({ received: true, duplicate: true });
		expect(executions()).toHaveLength(1);
	});

	it('to another webhook process, and after n8n restarted: the record is in the database, not in a process', async () => {
		await activate();
		const [scanId] = sandbox.control.seedScans({ count: 1 });
		await sandbox.control.deliver(webhookId, 'scan.completed', scanId);
		await result(1);
		route = 1;
		await sandbox.control.repeatDelivery({ index: 0 });
		await result(2);
		restart();
		await sandbox.control.repeatDelivery({ index: 0, restamp: true });
		await result(3);

		expect(receiver.results.map((r) => r.body)).toEqual([
			{ received: true },
			{ received: true, duplicate: true },
			{ received: true, duplicate: true },
		]);
		expect(executions()).toHaveLength(1);
	});

	it('the same bytes after the replay tolerance: still known, so 200 duplicate and no execution (a new delivery that old is late)', async () => {
		// Process 0 accepts 4 minutes (default 300 s); process 1 only 60 s, so the same bytes are
		// outside its tolerance when they arrive there.
		database = new StaticDataDatabase();
		const harnessFor = (replayTolerance: number) => (staticData: IDataObject) =>
			makeHarness(
				sandbox,
				receiver.baseUrl,
				{ events: ALL_EVENTS, options: { replayTolerance } } as never,
				staticData,
			);
		processes = [
			new WebhookProcess(database, harnessFor(300)),
			new WebhookProcess(database, harnessFor(60)),
		];
		await processes[0].activate();
		const stored = database.read()['node:Document Scanning Trigger'] as IDataObject;
		url = String(stored.webhookUrl);
		const send = (scanId: number) => {
			const raw = JSON.stringify({
				event: 'scan.completed',
				timestamp: isoWithOffset(Date.now() - 4 * 60_000),
				data: { scan_id: scanId, status: 'completed' },
			});
			return { raw, signature: signatureHeader(String(stored.webhookSecret), raw) };
		};
		const one = send(41);
		const post = (delivery: { raw: string; signature: string }) =>
			postRaw(url, delivery.raw, {
				'X-Service-Event': 'scan.completed',
				'X-Service-Signature': delivery.signature,
			});

		expect((await post(one)).body).toEqual({ received: true });
		await result(1);
		route = 1;
		expect(await post(one)).toEqual({ status: 200, body: { received: true, duplicate: true } });
		expect((await post(send(42))).body).toEqual({ received: true, late: true });
		expect(executions()).toHaveLength(1);
	});

	it('Split Into Table Rows: every row carries the delivery key, and a repeat starts none', async () => {
		await activate({ splitIntoRows: true });
		const [scanId] = sandbox.control.seedScans({ count: 1, template_id: 2 });
		await sandbox.control.deliver(webhookId, 'scan.completed', scanId);
		await result(1);
		await sandbox.control.repeatDelivery();
		await receiver.waitFor(2);
		const rows = itemsOf(executions()[0]);
		expect(rows.length).toBeGreaterThan(1);
		expect(new Set(rows.map((row) => row.deliveryKey))).toEqual(new Set([sentKey(0)]));
		expect(executions()).toHaveLength(1);
	});

	it('the same scan under both events: different deliveries, each runs; sample deliveries (scan_id 0) are one result, whatever their timestamp', async () => {
		await activate();
		const [scanId] = sandbox.control.seedScans({ count: 1 });
		await sandbox.control.deliver(webhookId, 'scan.completed', scanId);
		await sandbox.control.deliver(webhookId, 'scan.failed', scanId);
		await sandbox.control.deliver(webhookId, 'scan.completed');
		await result(3);
		sandbox.control.advanceClock(1_000);
		await sandbox.control.deliver(webhookId, 'scan.completed');
		await receiver.waitFor(4);

		const keys = executions().map((r) => String(itemsOf(r)[0].deliveryKey));
		expect(keys).toEqual([sentKey(0), sentKey(1), sentKey(2)]);
		expect(keys[0]).toMatch(new RegExp(`^scan\\.completed:${scanId}:`));
		expect(keys[1]).toMatch(new RegExp(`^scan\\.failed:${scanId}:`));
		// A sample has no usable scan ID: its key is the digest of the body without its timestamp.
		expect(keys[2]).toMatch(/^sha256:[0-9a-f]{16}$/);
		expect(sentKey(3)).toBe(keys[2]);
		expect(receiver.results[3].body).toEqual({ received: true, duplicate: true });
	});

	it('a scan processed again with a new result (validation_failed, then completed) runs again; the same result resent does not', async () => {
		await activate();
		const [scanId] = sandbox.control.seedScans({ count: 1, status: 'validation_failed' as never });
		await sandbox.control.deliver(webhookId, 'scan.completed', scanId);
		await result(1);
		sandbox.control.reprocessScan(scanId, 'completed');
		await result(2);
		await sandbox.control.repeatDelivery({ restamp: true });
		await receiver.waitFor(3);
		expect(executions().map((r) => itemsOf(r)[0].deliveryKey)).toEqual([sentKey(0), sentKey(1)]);
		expect(sentKey(0)).not.toBe(sentKey(1));
		expect(executions().map((r) => (itemsOf(r)[0].data as IDataObject).status)).toEqual([
			'validation_failed',
			'completed',
		]);
		expect(receiver.results[2].body).toEqual({ received: true, duplicate: true });
	});

	it('a scan_id sent as a string is the same scan: a resend that writes it so is a repeat; the scan named as data.id too', async () => {
		await activate();
		const post = (scanId: number | string) => {
			const raw = JSON.stringify({
				event: 'scan.completed',
				timestamp: isoWithOffset(Date.now()),
				data: { scan_id: scanId },
			});
			return postRaw(url, raw, { 'X-Service-Signature': signatureHeader(secret, raw) });
		};
		expect((await post(9)).body).toEqual({ received: true });
		await result(1);
		expect((await post('9')).body).toEqual({ received: true, duplicate: true });
		expect((await post(10)).body).toEqual({ received: true });
		expect(executions()).toHaveLength(2);
		// A scan.failed body that names the scan as data.id: keyed by it, resent anew it is a repeat.
		const failed = (at: number) => {
			const raw = JSON.stringify({
				event: 'scan.failed',
				timestamp: isoWithOffset(at),
				data: { id: 11, status: 'failed', error_message: 'unreadable' },
			});
			return postRaw(url, raw, { 'X-Service-Signature': signatureHeader(secret, raw) });
		};
		expect((await failed(Date.now())).body).toEqual({ received: true });
		await result(4);
		expect((await failed(Date.now() + 5_000)).body).toEqual({ received: true, duplicate: true });
		expect(String(itemsOf(executions()[2])[0].deliveryKey)).toMatch(
			/^scan\.failed:11:[0-9a-f]{16}$/,
		);
	});

	it('writes the static data only for a delivery that starts an execution: refusals, ignored events and repeats write nothing', async () => {
		await activate({}, ['scan.completed']);
		const before = database.writes;
		const [scanId] = sandbox.control.seedScans({ count: 1 });
		await sandbox.control.deliver(webhookId, 'scan.completed', scanId);
		await result(1);
		expect(database.writes).toBe(before + 1);

		await sandbox.control.repeatDelivery();
		await sandbox.control.deliver(webhookId, 'scan.failed', scanId);
		await sandbox.control.repeatDelivery();
		const forged = await postRaw(url, '{}', {
			'X-Service-Signature': `sha256=${'0'.repeat(64)}`,
		});
		await receiver.waitFor(5);
		expect(forged.status).toBe(401);
		expect(receiver.results[3].body).toMatchObject({ ignored: expect.any(String) });
		expect(database.writes).toBe(before + 1);
		expect(executions()).toHaveLength(1);
		const record = JSON.stringify(recorded());
		expect(record).not.toContain(secret);
		expect(record).not.toContain('sha256=');
	});
});

describe('what the node cannot guarantee (n8n shares static data without locking)', () => {
	it('a repeat while the first is still being handled (both read the record before either wrote): both run, with the same deliveryKey', async () => {
		await activate();
		const [scanId] = sandbox.control.seedScans({ count: 1 });
		const release = database.holdWrites();
		await sandbox.control.deliver(webhookId, 'scan.completed', scanId);
		route = 1;
		await sandbox.control.repeatDelivery();
		release();
		await receiver.waitFor(2);

		const keys = executions().map((r) => itemsOf(r)[0].deliveryKey);
		expect(keys).toEqual([sentKey(0), sentKey(0)]);
	});

	it('two deliveries handled at the same moment: the later write drops the other key, so its repeat runs again, with the same deliveryKey', async () => {
		await activate();
		const [a, b] = sandbox.control.seedScans({ count: 2 });
		const release = database.holdWrites();
		await sandbox.control.deliver(webhookId, 'scan.completed', a);
		await sandbox.control.deliver(webhookId, 'scan.completed', b);
		release();
		await receiver.waitFor(2);
		expect(Object.keys(recorded())).toEqual([sentKey(1)]);

		await sandbox.control.repeatDelivery({ index: 1 });
		await sandbox.control.repeatDelivery({ index: 0 });
		await receiver.waitFor(4);
		expect(receiver.results[2].body).toEqual({ received: true, duplicate: true });
		const keys = executions().map((r) => itemsOf(r)[0].deliveryKey);
		expect(keys).toEqual([sentKey(0), sentKey(1), sentKey(0)]);
		expect([a, b].map(String)).toEqual([sentKey(0), sentKey(1)].map((key) => key.split(':')[1]));
	});
});
