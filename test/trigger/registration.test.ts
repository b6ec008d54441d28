/**
 * Nothing a delivery does can undo the registration (issue 38 §1): a delivery writes no static
 * data, on any path, so n8n's whole write-back after each webhook request has nothing to set back.
 *
 * n8n's webhook processes (webhook-processes.ts) read the workflow's static data when a request
 * arrives and write it back if it changed. A delivery held in "Include Full Scan" (its GET
 * /scans/{id} held by the sandbox) while the workflow is deactivated and activated again, then 11
 * deliveries to the new webhook: 11 run. A changed WEBHOOK_URL leaves the old webhook alone, whose
 * deliveries then fail the new secret (401) until the service deactivates it. A forged request
 * costs no request to the service.
 */
import { HookContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox, startSandbox } from '../../sandbox/server';
import { ALL_EVENTS } from '../support/fixtures';
import { type Receiver, startReceiver } from '../support/receiver';
import { itemsOf, listWebhooks, makeHarness, postRaw } from './helpers';
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
async function reactivateDuringDelivery(
	failing = false,
): Promise<{ first: number; second: number }> {
	await process.activate();
	const first = stored().webhookId as number;
	const [scanId] = sandbox.control.seedScans({ count: 1 });
	sandbox.control.addFault({ method: 'GET', path: '^/scans/\\d+$', kind: 'hold' });
	// The failing service: the new webhook's POST is answered 503 once, so n8n's activation fails
	// and is tried again, with the delivery still in flight.
	if (failing)
		sandbox.control.addFault({ method: 'POST', path: '^/webhooks$', kind: 'status', status: 503 });
	const answered = await sandbox.control.deliver(first, 'scan.completed', scanId);
	expect(answered.status).toBe(200); // answered at once, before the fetch
	await held(1);

	await process.deactivate();
	if (failing) await expect(process.activate()).rejects.toThrow(/503|unavailable|server/i);
	await process.activate();
	const second = Number(stored().webhookId);
	expect(second).not.toBe(first);

	sandbox.control.releaseHeld();
	await receiver.waitFor(1);
	return { first, second };
}

describe('re-activation while a delivery is in flight', () => {
	for (const failing of [false, true])
		it(`${failing ? 'with a failing service (the first POST /webhooks of the re-activation answered 503): ' : ''}the slow delivery writes nothing back; 11 deliveries to the new webhook run`, async () => {
			const { first, second } = await reactivateDuringDelivery(failing);
			expect(itemsOf(executions()[0])[0].scan).toMatchObject({ id: expect.any(Number) });
			expect(String(stored().webhookId)).toBe(String(second));
			expect(sandbox.control.getWebhook(first)).toBeUndefined();
			const writes = database.writes;

			const scanIds = sandbox.control.seedScans({ count: 11 });
			for (const [i, scanId] of scanIds.entries()) {
				const record = await sandbox.control.deliver(second, 'scan.completed', scanId);
				expect(record).toMatchObject({ status: 200, success: true });
				await receiver.waitFor(2 + i);
			}
			expect(executions()).toHaveLength(12);
			expect(database.writes).toBe(writes);
			expect(sandbox.control.getWebhook(second)).toMatchObject({ active: true, failureCount: 0 });
			expect(await listWebhooks(sandbox)).toEqual([expect.objectContaining({ id: second })]);
		});
});

describe('one webhook per trigger', () => {
	it('activation registers exactly one webhook, a restart keeps it, deactivation deletes it', async () => {
		await process.activate();
		const id = stored().webhookId;
		expect(await listWebhooks(sandbox)).toEqual([expect.objectContaining({ id })]);
		await process.activate(); // n8n restarted: checkExists finds it usable
		expect(await listWebhooks(sandbox)).toEqual([expect.objectContaining({ id })]);
		await process.deactivate();
		expect(await listWebhooks(sandbox)).toEqual([]);
		expect(stored()).toEqual({});
	});

	it('upgrading from a version that kept a second webhook (its URL with ?ds_seal=): activation deletes both and registers one', async () => {
		await process.activate();
		const url = String(stored().webhookUrl);
		const res = await fetch(`${sandbox.baseUrl}/webhooks`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${DEFAULT_API_KEY}` },
			body: JSON.stringify({
				name: 'n8n: old (signing key)',
				url: `${url}?ds_seal=abc`,
				events: ['scan.failed'],
			}),
		});
		expect(res.status).toBe(201);
		await database.write({
			[NODE]: { ...stored(), webhookKeyAtService: true, recentDeliveries: { a: 1 } },
		});
		await process.activate();
		const hooks = await listWebhooks(sandbox);
		expect(hooks).toHaveLength(1);
		expect(String(hooks[0].url)).toBe(url);
		expect(Object.keys(stored()).sort()).toEqual([
			'webhookEvents',
			'webhookId',
			'webhookSecret',
			'webhookUrl',
		]);
	});
});

describe('a changed WEBHOOK_URL', () => {
	it('registers one webhook at the new address; the old one is left alone and logged, its deliveries get 401 until the service deactivates it; each event runs once', async () => {
		await process.activate();
		const old = stored().webhookId as number;
		const moved = `${receiver.baseUrl}/moved`;
		process = new WebhookProcess(database, (staticData) =>
			makeHarness(sandbox, moved, { events: ALL_EVENTS } as never, staticData),
		);
		const warn = jest.fn();
		const logger = jest
			.spyOn(HookContext.prototype, 'logger', 'get')
			.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
		try {
			await process.activate();
		} finally {
			logger.mockRestore();
		}
		const current = stored().webhookId as number;
		expect(current).not.toBe(old);
		expect(String(stored().webhookUrl)).toContain('/moved/');
		expect(warn).toHaveBeenCalledWith(expect.stringContaining(`webhook ${old}`));
		expect((await listWebhooks(sandbox)).map((hook) => hook.id).sort()).toEqual(
			[old, current].sort(),
		);

		// Every event goes to both webhooks: the old one's are refused, the new one's run.
		const scanIds = sandbox.control.seedScans({ count: 10 });
		for (const [i, scanId] of scanIds.entries()) {
			expect((await sandbox.control.deliver(old, 'scan.completed', scanId)).status).toBe(401);
			expect((await sandbox.control.deliver(current, 'scan.completed', scanId)).status).toBe(200);
			await receiver.waitFor(2 * (i + 1));
		}
		expect(executions()).toHaveLength(10);
		expect(sandbox.control.getWebhook(old)).toMatchObject({ active: false });
		expect(sandbox.control.getWebhook(current)).toMatchObject({ active: true, failureCount: 0 });
	});
});

describe('a forged request', () => {
	it('costs no request to the service and starts nothing, whatever its body', async () => {
		await process.activate();
		const url = String(stored().webhookUrl);
		sandbox.control.clearRequests();
		const bodies = [
			'{}',
			'{"event":"scan.completed","data":{"scan_id":1}}',
			'x'.repeat(10_000),
			'',
		];
		for (const body of bodies)
			for (const signature of [undefined, `sha256=${'0'.repeat(64)}`, 'sha256=zz'])
				expect(
					(await postRaw(url, body, signature ? { 'X-Service-Signature': signature } : {})).status,
				).toBe(401);
		expect(sandbox.control.requests()).toEqual([]);
		expect(executions()).toHaveLength(0);
	});
});
