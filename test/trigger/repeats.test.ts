/**
 * A delivery sent more than once (issue 38 §2): at least once. The sandbox plays a service that
 * redelivers (the same bytes, or signed again with a new timestamp); n8n's webhook processes are
 * played by `WebhookProcess` (each request reads the workflow's static data when it arrives and
 * writes it back if it changed), so what holds across requests and processes is tested.
 *
 * Every verified delivery inside the replay tolerance runs, once per arrival, in any process;
 * each copy of one result carries the same `deliveryKey`, a new result a new one, and no delivery
 * writes static data, on any path. Remove Duplicates on the key (test/examples) makes the effect
 * happen once.
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
const keys = () => executions().map((r) => String(itemsOf(r)[0].deliveryKey));

describe('a delivery sent again runs again, with the same deliveryKey', () => {
	it('the same bytes and headers again: 200 {"received":true}, an execution with the same key, no failure counted', async () => {
		await activate();
		const scanId = await uploadScan(sandbox, 'invoice.pdf');
		const [first] = await sandbox.control.waitForDeliveries(1);
		await result(1);
		const [again] = await sandbox.control.repeatDelivery();
		await receiver.waitFor(2);

		expect(again.body).toBe(first.body);
		expect(again).toMatchObject({ status: 200, success: true, attempt: 2 });
		expect(receiver.results.map((r) => r.body)).toEqual([{ received: true }, { received: true }]);
		expect(keys()).toEqual([sentKey(0), sentKey(0)]);
		expect(sentKey(0)).toMatch(new RegExp(`^scan\\.completed:${scanId}:[0-9a-f]{16}$`));
		expect(sandbox.control.getWebhook(webhookId)?.failureCount).toBe(0);
	});

	it('signed again with a new timestamp, to another webhook process, after a restart: the same key each time', async () => {
		await activate();
		const [scanId] = sandbox.control.seedScans({ count: 1, status: 'failed' });
		const first = await sandbox.control.deliver(webhookId, 'scan.failed', scanId);
		await result(1);
		sandbox.control.advanceClock(30_000);
		route = 1;
		const [again] = await sandbox.control.repeatDelivery({ restamp: true });
		await result(2);
		restart();
		await sandbox.control.repeatDelivery({ index: 0 });
		await receiver.waitFor(3);

		expect(JSON.parse(again.body).timestamp).not.toBe(JSON.parse(first.body).timestamp);
		expect(keys()).toEqual([sentKey(0), sentKey(0), sentKey(0)]);
		expect(sentKey(0)).toMatch(new RegExp(`^scan\\.failed:${scanId}:`));
	});

	it('copies at the same moment in two processes both run, with the same key', async () => {
		await activate();
		const [scanId] = sandbox.control.seedScans({ count: 1 });
		await sandbox.control.deliver(webhookId, 'scan.completed', scanId);
		route = 1;
		await sandbox.control.repeatDelivery({ copies: 2 });
		await receiver.waitFor(3);
		expect(keys()).toEqual([sentKey(0), sentKey(0), sentKey(0)]);
	});

	it('outside the replay tolerance: 200 {late}, no execution, whatever ran before', async () => {
		await activate({ replayTolerance: 60 });
		const raw = JSON.stringify({
			event: 'scan.completed',
			timestamp: isoWithOffset(Date.now() - 4 * 60_000),
			data: { scan_id: 41, status: 'completed' },
		});
		const posted = await postRaw(url, raw, {
			'X-Service-Event': 'scan.completed',
			'X-Service-Signature': signatureHeader(secret, raw),
		});
		expect(posted).toEqual({ status: 200, body: { received: true, late: true } });
		expect(executions()).toHaveLength(0);
	});

	it('Split Into Table Rows: every row carries the delivery key, in each run', async () => {
		await activate({ splitIntoRows: true });
		const [scanId] = sandbox.control.seedScans({ count: 1, template_id: 2 });
		await sandbox.control.deliver(webhookId, 'scan.completed', scanId);
		await result(1);
		await sandbox.control.repeatDelivery();
		await receiver.waitFor(2);
		const rows = executions().flatMap((r) => itemsOf(r));
		expect(rows.length).toBeGreaterThan(2);
		expect(new Set(rows.map((row) => row.deliveryKey))).toEqual(new Set([sentKey(0)]));
	});

	it('the same scan under both events: different keys; sample deliveries (scan_id 0) are one result, whatever their timestamp', async () => {
		await activate();
		const [scanId] = sandbox.control.seedScans({ count: 1 });
		await sandbox.control.deliver(webhookId, 'scan.completed', scanId);
		await sandbox.control.deliver(webhookId, 'scan.failed', scanId);
		await sandbox.control.deliver(webhookId, 'scan.completed');
		await result(3);
		sandbox.control.advanceClock(1_000);
		await sandbox.control.deliver(webhookId, 'scan.completed');
		await receiver.waitFor(4);

		expect(keys()).toEqual([sentKey(0), sentKey(1), sentKey(2), sentKey(2)]);
		expect(keys()[1]).toMatch(new RegExp(`^scan\\.failed:${scanId}:`));
		expect(keys()[2]).toMatch(/^sha256:[0-9a-f]{16}$/);
		expect(sentKey(3)).toBe(keys()[2]);
	});

	it("a result that changes and changes back (failed, completed, failed): each runs, the third with the first one's key; the signed timestamps order them", async () => {
		await activate();
		const failed = { scan_id: 7, status: 'failed', error_message: 'unreadable' };
		const completed = { scan_id: 7, status: 'completed', confidence: 90, extracted_data: {} };
		const sent = [
			['scan.failed', failed],
			['scan.completed', completed],
			['scan.failed', failed],
		] as const;
		for (const [i, [event, data]] of sent.entries()) {
			const raw = JSON.stringify({ event, timestamp: isoWithOffset(Date.now() + i * 1_000), data });
			await postRaw(url, raw, { 'X-Service-Signature': signatureHeader(secret, raw) });
		}
		await receiver.waitFor(3);
		expect(executions().map((r) => (itemsOf(r)[0].data as IDataObject).status)).toEqual([
			'failed',
			'completed',
			'failed',
		]);
		expect(keys()[2]).toBe(keys()[0]);
		expect(keys()[1]).not.toBe(keys()[0]);
		const stamps = executions().map((r) => Date.parse(String(itemsOf(r)[0].timestamp)));
		expect(stamps[0] < stamps[1] && stamps[1] < stamps[2]).toBe(true);
	});

	it('a scan_id sent as a string is the same scan; a scan.failed body naming the scan as data.id is keyed by it', async () => {
		await activate();
		const post = (data: IDataObject, event = 'scan.completed', at = Date.now()) => {
			const raw = JSON.stringify({ event, timestamp: isoWithOffset(at), data });
			return postRaw(url, raw, { 'X-Service-Signature': signatureHeader(secret, raw) });
		};
		await post({ scan_id: 9 });
		await post({ scan_id: '9' });
		await post({ scan_id: 10 });
		const failed = { id: 11, status: 'failed', error_message: 'unreadable' };
		await post(failed, 'scan.failed');
		await post(failed, 'scan.failed', Date.now() + 5_000);
		await receiver.waitFor(5);
		expect(keys()[1]).toBe(keys()[0]);
		expect(keys()[2]).not.toBe(keys()[0]);
		expect(keys()[3]).toMatch(/^scan\.failed:11:[0-9a-f]{16}$/);
		expect(keys()[4]).toBe(keys()[3]);
	});
});

describe('a delivery writes no static data, on any path', () => {
	it('accepted, repeated, ignored, late, forged, unparsable, failed full-scan read: no write, and the copy a request read is unchanged', async () => {
		await activate({ includeFullScan: true, replayTolerance: 60 }, ['scan.completed']);
		const before = database.writes;
		const stored = JSON.stringify(database.read());
		const [scanId] = sandbox.control.seedScans({ count: 1 });
		sandbox.control.addFault({
			method: 'GET',
			path: '^/scans/\\d+$',
			kind: 'status',
			status: 503,
			times: 1,
		});
		await sandbox.control.deliver(webhookId, 'scan.completed', scanId); // its read fails
		await sandbox.control.repeatDelivery(); // runs again
		await sandbox.control.deliver(webhookId, 'scan.failed', scanId); // ignored
		const late = JSON.stringify({
			event: 'scan.completed',
			timestamp: '2020-01-01T00:00:00Z',
			data: { scan_id: 1 },
		});
		await postRaw(url, late, { 'X-Service-Signature': signatureHeader(secret, late) });
		await postRaw(url, '{}', { 'X-Service-Signature': `sha256=${'0'.repeat(64)}` });
		await postRaw(url, 'not json', { 'X-Service-Signature': signatureHeader(secret, 'not json') });
		await receiver.waitFor(6);

		expect(receiver.results.map((r) => r.status)).toEqual([200, 200, 200, 200, 401, 400]);
		expect(itemsOf(executions()[0])[0].fetchError).toEqual(expect.stringContaining('503'));
		expect(executions()).toHaveLength(2);
		expect(database.writes).toBe(before);
		expect(JSON.stringify(database.read())).toBe(stored);
	});
});
