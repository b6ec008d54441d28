/**
 * Nothing a delivery does can undo the registration (issue 33 §1; issue 31 invariant 8).
 *
 * n8n's webhook processes (webhook-processes.ts) read the workflow's static data when a request
 * arrives and write it back whole after `webhook()` returned. A delivery held in "Include Full
 * Scan" (its GET /scans/{id} held by the sandbox) while the workflow is deactivated and activated
 * again writes the old webhook's ID and secret back over the new ones. The new webhook's secret is
 * also held at the service by its key carrier, so its deliveries are still verified, and the first
 * one puts the registration back into static data. A service that drops a webhook URL's query
 * keeps no carrier: then deliveries record nothing, so they write nothing back (at least once).
 */
import { HookContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { type Sandbox, startSandbox } from '../../sandbox/server';
import { ALL_EVENTS } from '../support/fixtures';
import { type Receiver, startReceiver } from '../support/receiver';
import { TriggerHarness } from '../support/trigger-harness';
import { itemsOf, listWebhooks, makeHarness } from './helpers';
import { StaticDataDatabase, WebhookProcess } from './webhook-processes';

const NODE = 'node:Document Scanning Trigger';

let sandbox: Sandbox;
let receiver: Receiver;
let database: StaticDataDatabase;
let process: WebhookProcess;

beforeAll(async () => {
	sandbox = await startSandbox({ allowInsecureWebhookUrls: true, processingDelayMs: 20 });
	receiver = await startReceiver(() => process);
});
afterAll(async () => {
	await receiver.close();
	await sandbox.close();
});
beforeEach(() => {
	sandbox.control.reset();
	receiver.results.splice(0);
	database = new StaticDataDatabase();
	process = new WebhookProcess(database, (staticData) =>
		makeHarness(
			sandbox,
			receiver.baseUrl,
			{ events: ALL_EVENTS, options: { includeFullScan: true } } as never,
			staticData,
		),
	);
});

const stored = () => database.read()[NODE] as IDataObject;
const executions = () => receiver.results.filter((result) => result.workflowData !== undefined);

/** Waits until the sandbox holds `count` requests (a condition, not a sleep). */
async function held(count: number): Promise<void> {
	for (let i = 0; i < 400 && sandbox.control.heldRequests() < count; i++)
		await new Promise((resolve) => setTimeout(resolve, 25));
	expect(sandbox.control.heldRequests()).toBe(count);
}

/**
 * Activation, a delivery of webhook 1 held in its GET /scans/{id}, deactivation and activation
 * (webhook 2), then the held delivery goes on and writes its copy of static data back.
 */
async function reactivateDuringDelivery(): Promise<{ first: number; second: number }> {
	await process.activate();
	const first = stored().webhookId as number;
	const [scanId] = sandbox.control.seedScans({ count: 1 });
	sandbox.control.addFault({ method: 'GET', path: '^/scans/\\d+$', kind: 'hold' });
	const answered = await sandbox.control.deliver(first, 'scan.completed', scanId);
	expect(answered.status).toBe(200); // answered at once, before the fetch
	await held(1);

	await process.deactivate();
	await process.activate();
	const second = Number(stored().webhookId);
	expect(second).not.toBe(first);

	sandbox.control.releaseHeld();
	await receiver.waitFor(1);
	return { first, second };
}

describe('re-activation while a delivery is in flight', () => {
	it('the slow delivery writes the old registration back; the new webhook still verifies 12 deliveries in a row, and the first puts the registration back', async () => {
		const { first, second } = await reactivateDuringDelivery();
		expect(itemsOf(executions()[0])[0].scan).toMatchObject({ id: expect.any(Number) });
		// What n8n did: the held delivery's write-back set static data back to webhook 1.
		expect(stored().webhookId).toBe(first);
		expect(sandbox.control.getWebhook(first)).toBeUndefined();

		const scanIds = sandbox.control.seedScans({ count: 12 });
		for (const [i, scanId] of scanIds.entries()) {
			const record = await sandbox.control.deliver(second, 'scan.completed', scanId);
			expect(record).toMatchObject({ status: 200, success: true });
			await receiver.waitFor(2 + i);
		}
		expect(executions()).toHaveLength(13);
		expect(sandbox.control.getWebhook(second)).toMatchObject({ active: true, failureCount: 0 });
		expect(String(stored().webhookId)).toBe(String(second));
		expect(stored().webhookKeyAtService).toBe(true);
		// Repeats are still recorded, and still refused, one after another.
		await sandbox.control.repeatDelivery({ restamp: true });
		await receiver.waitFor(14);
		expect(receiver.results[13].body).toEqual({ received: true, duplicate: true });
	});

	it('a restart of n8n after that: checkExists finds the webhook set back in static data not usable and registers anew; deliveries verify', async () => {
		await reactivateDuringDelivery();
		await process.activate(); // n8n restarted: checkExists with the set-back static data
		const third = Number(stored().webhookId);
		expect(await listWebhooks(sandbox)).toEqual([expect.objectContaining({ id: third })]);
		const [scanId] = sandbox.control.seedScans({ count: 1 });
		expect((await sandbox.control.deliver(third, 'scan.completed', scanId)).status).toBe(200);
		await receiver.waitFor(2);
		expect(executions()).toHaveLength(2);
	});
});

describe('a service that drops the query of a webhook URL (the spec does not show the record)', () => {
	it("activation keeps the secret in static data only, says so in n8n's log, and leaves no carrier at the service", async () => {
		sandbox.control.setOptions({ webhookUrlQuery: 'dropped' });
		const warn = jest.fn();
		const logger = jest
			.spyOn(HookContext.prototype, 'logger', 'get')
			.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
		try {
			await process.activate();
		} finally {
			logger.mockRestore();
		}
		expect(warn).toHaveBeenCalledWith(
			expect.stringMatching(
				/did not keep the query of its URL.*repeated deliveries are therefore not recorded/,
			),
		);
		expect(stored().webhookKeyAtService).toBe(false);
		expect(await listWebhooks(sandbox, true)).toHaveLength(1);
	});

	it('deliveries write nothing back, so re-activation during one costs nothing; a repeat runs again with the same deliveryKey (at least once)', async () => {
		sandbox.control.setOptions({ webhookUrlQuery: 'dropped' });
		const { second } = await reactivateDuringDelivery();
		expect(String(stored().webhookId)).toBe(String(second));
		const writes = database.writes;

		const scanIds = sandbox.control.seedScans({ count: 10 });
		for (const [i, scanId] of scanIds.entries()) {
			expect((await sandbox.control.deliver(second, 'scan.completed', scanId)).status).toBe(200);
			await receiver.waitFor(2 + i);
		}
		await sandbox.control.repeatDelivery();
		await receiver.waitFor(12);
		expect(database.writes).toBe(writes);
		const keys = executions().map((result) => itemsOf(result)[0].deliveryKey);
		expect(keys).toHaveLength(12);
		expect(keys[11]).toBe(keys[10]);
	});
});

describe('the key carrier', () => {
	it('its own deliveries (scan.failed) are answered 200 and start nothing; a forged one to its URL neither', async () => {
		await process.activate();
		const carrier = (await listWebhooks(sandbox, true)).find((hook) =>
			String(hook.url).includes('ds_seal='),
		)!;
		const [scanId] = sandbox.control.seedScans({ count: 1, status: 'failed' as never });
		const record = await sandbox.control.deliver(carrier.id as number, 'scan.failed', scanId);
		expect(record).toMatchObject({ status: 200, success: true });
		const forged = await fetch(String(carrier.url), { method: 'POST', body: '{}' });
		expect(forged.status).toBe(200);
		expect(executions()).toHaveLength(0);
	});

	it('a seal made with another API key (the key rotated since) does not open: only the stored secret verifies', async () => {
		const rotated = 'dsk_rotated_key_of_the_same_account_0001';
		sandbox.control.reset({ extraApiKeys: [rotated] });
		await process.activate();
		const id = stored().webhookId as number;
		process = new WebhookProcess(database, (staticData) =>
			TriggerHarness.create({
				parameters: { events: ALL_EVENTS },
				env: { baseUrl: sandbox.baseUrl, apiKey: rotated },
				webhookBaseUrl: receiver.baseUrl,
				staticData,
			}),
		);
		const [a, b] = sandbox.control.seedScans({ count: 2 });
		expect((await sandbox.control.deliver(id, 'scan.completed', a)).status).toBe(200);
		await receiver.waitFor(1);
		expect(executions()).toHaveLength(1);

		await database.write({ [NODE]: { ...stored(), webhookSecret: 'whsec_set_back' } });
		expect((await sandbox.control.deliver(id, 'scan.completed', b)).status).toBe(401);
		await receiver.waitFor(2);
		expect(executions()).toHaveLength(1);
	});
});
