/**
 * Activation / restart / deactivation of the Document Scanning Trigger against the sandbox,
 * through n8n-core's HookContext (checkExists → create, delete) over real HTTP.
 */

import { HookContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox, startSandbox } from '../../sandbox/server';
import { type Receiver, startReceiver } from '../support/receiver';
import { type TriggerHarness } from '../support/trigger-harness';
import { itemsOf, listWebhooks, makeHarness, nodeStatic } from './helpers';
import { ALL_EVENTS } from '../support/fixtures';

let sandbox: Sandbox;
let receiver: Receiver;
let current: TriggerHarness | undefined;
let receiverDown = false;

beforeAll(async () => {
	sandbox = await startSandbox({ allowInsecureWebhookUrls: true, processingDelayMs: 20 });
	receiver = await startReceiver(() => {
		if (receiverDown) throw new Error('n8n is down');
		if (!current) throw new Error('no harness');
		return current;
	});
});
afterAll(async () => {
	await receiver.close();
	await sandbox.close();
});
beforeEach(() => {
	sandbox.control.reset();
	receiver.results.splice(0);
	receiverDown = false;
	current = undefined;
});

async function harness(parameters: IDataObject = { events: ALL_EVENTS }, staticData?: IDataObject) {
	current = await makeHarness(sandbox, receiver.baseUrl, parameters as never, staticData);
	return current;
}

function webhookPosts(): number {
	return sandbox.control.requests().filter((r) => r.method === 'POST' && r.path === '/webhooks')
		.length;
}

function deletesOf(id: number): number {
	return sandbox.control
		.requests()
		.filter((r) => r.method === 'DELETE' && r.path === `/webhooks/${id}`).length;
}

describe('create (fresh activation)', () => {
	it('registers the production URL with the selected events, one webhook only, and keeps id, secret, url and events in static data', async () => {
		const trigger = await harness();
		expect(await trigger.hook('checkExists')).toBe(false);
		expect(await trigger.hook('create')).toBe(true);

		const hooks = await listWebhooks(sandbox);
		expect(hooks).toHaveLength(1);
		const [record] = hooks;
		const url = trigger.webhookUrl();
		expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook\/.+\/webhook$/);
		expect(record.url).toBe(url);
		expect(record.events).toEqual(ALL_EVENTS);
		expect(record.name).toBe('n8n: Scan automation / Document Scanning Trigger');

		const stored = nodeStatic(trigger);
		const secret = sandbox.control.getWebhook(record.id as number)!.secret;
		expect(stored).toEqual({
			webhookId: record.id,
			webhookSecret: secret,
			webhookUrl: url,
			webhookEvents: ALL_EVENTS,
		});
		expect(webhookPosts()).toBe(1);
	});

	it('registers the test URL in test mode', async () => {
		const trigger = await harness({ events: ['scan.failed'] });
		await trigger.activate({ isTest: true });
		const [record] = await listWebhooks(sandbox);
		expect(record.url).toBe(trigger.webhookUrl(true));
		expect(String(record.url)).toContain('/webhook-test/');
		expect(record.events).toEqual(['scan.failed']);
	});

	it('refuses to create a webhook without events', async () => {
		const trigger = await harness({ events: [] });
		await expect(trigger.hook('create')).rejects.toThrow(/at least one event/);
		expect(webhookPosts()).toBe(0);
	});

	it('keeps the name within 255 characters', async () => {
		const trigger = await harness();
		(trigger.workflow as { name?: string }).name = 'x'.repeat(400);
		await trigger.activate();
		const [record] = await listWebhooks(sandbox);
		expect(String(record.name).length).toBeLessThanOrEqual(255);
		expect(String(record.name)).toMatch(/^n8n: x+/);
	});
});

describe('checkExists', () => {
	it('n8n restarted (same static data): true, no new webhook, nothing deleted', async () => {
		const staticData: IDataObject = {};
		await (await harness(undefined, staticData)).activate();
		sandbox.control.clearRequests();

		const restarted = await harness(undefined, staticData);
		expect(await restarted.hook('checkExists', { activation: 'init' })).toBe(true);
		await restarted.activate();
		expect(webhookPosts()).toBe(0);
		expect(sandbox.control.requests().some((r) => r.method === 'DELETE')).toBe(false);
		expect(await listWebhooks(sandbox)).toHaveLength(1);
	});

	it('webhook deleted on the server: false, static data cleared, a fresh one is created', async () => {
		const trigger = await harness();
		await trigger.activate();
		const firstId = nodeStatic(trigger).webhookId as number;
		sandbox.control.deleteWebhookDirect(firstId);

		expect(await trigger.hook('checkExists')).toBe(false);
		expect(nodeStatic(trigger)).toEqual({});
		await trigger.hook('create');
		const hooks = await listWebhooks(sandbox);
		expect(hooks.map((h) => h.id)).toEqual([nodeStatic(trigger).webhookId]);
		expect(nodeStatic(trigger).webhookId).not.toBe(firstId);
	});

	it('webhook deactivated on the server: false, the stale one deleted, a fresh one works', async () => {
		const trigger = await harness();
		await trigger.activate();
		const firstId = nodeStatic(trigger).webhookId as number;
		sandbox.control.deactivateWebhook(firstId);

		expect(await trigger.hook('checkExists')).toBe(false);
		expect(deletesOf(firstId)).toBe(1);
		expect(sandbox.control.getWebhook(firstId)).toBeUndefined();
		expect(nodeStatic(trigger)).toEqual({});
	});

	it('deactivated by the service after 10 failed deliveries: recreated on the next activation, deliveries flow again', async () => {
		const trigger = await harness();
		await trigger.activate();
		const firstId = nodeStatic(trigger).webhookId as number;

		receiverDown = true; // the receiver answers 500
		for (let i = 0; i < 10; i++) {
			const record = await sandbox.control.deliver(firstId, 'scan.completed');
			expect(record.status).toBe(500);
		}
		expect(sandbox.control.getWebhook(firstId)).toMatchObject({ active: false, failureCount: 10 });
		receiverDown = false;

		// Still stored, still on the server, but inactive: not usable.
		expect(await trigger.hook('checkExists')).toBe(false);
		expect(sandbox.control.getWebhook(firstId)).toBeUndefined();
		await trigger.hook('create');
		const secondId = nodeStatic(trigger).webhookId as number;
		expect(secondId).not.toBe(firstId);

		receiver.results.splice(0);
		const record = await sandbox.control.deliver(secondId, 'scan.completed');
		expect(record.success).toBe(true);
		expect(itemsOf(receiver.results[0])).toHaveLength(1);
	});

	it('events changed in the node: false, the old webhook deleted, the new one has the new events', async () => {
		const staticData: IDataObject = {};
		await (await harness({ events: ALL_EVENTS }, staticData)).activate();
		const firstId = nodeStatic(current!).webhookId as number;

		const changed = await harness({ events: ['scan.completed'] }, staticData);
		expect(await changed.hook('checkExists')).toBe(false);
		expect(deletesOf(firstId)).toBe(1);
		await changed.hook('create');
		const hooks = await listWebhooks(sandbox);
		expect(hooks).toHaveLength(1);
		expect(hooks[0].events).toEqual(['scan.completed']);
		expect(nodeStatic(changed).webhookEvents).toEqual(['scan.completed']);
	});

	it('same events in another order: still true', async () => {
		const staticData: IDataObject = {};
		await (await harness({ events: ['scan.completed', 'scan.failed'] }, staticData)).activate();
		const reordered = await harness({ events: ['scan.failed', 'scan.completed'] }, staticData);
		expect(await reordered.hook('checkExists')).toBe(true);
	});

	it("URL changed (e.g. WEBHOOK_URL set later, or a workflow imported from another n8n): false; the old URL's webhook is left alone and named in n8n's log", async () => {
		const staticData: IDataObject = {};
		await (await harness(undefined, staticData)).activate();
		const firstId = nodeStatic(current!).webhookId as number;
		current = await makeHarness(
			sandbox,
			'https://n8n.example.com/webhook',
			{ events: ALL_EVENTS },
			staticData,
		);
		const warn = jest.fn();
		const logger = jest
			.spyOn(HookContext.prototype, 'logger', 'get')
			.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
		expect(await current.hook('checkExists')).toBe(false);
		logger.mockRestore();
		expect(deletesOf(firstId)).toBe(0);
		expect(warn).toHaveBeenCalledWith(
			expect.stringContaining(`webhook ${firstId}, stored by this node`),
		);
	});

	it('secret missing from static data: false, the webhook is replaced', async () => {
		const staticData: IDataObject = {};
		const trigger = await harness(undefined, staticData);
		await trigger.activate();
		const firstId = nodeStatic(trigger).webhookId as number;
		delete nodeStatic(trigger).webhookSecret;
		expect(await trigger.hook('checkExists')).toBe(false);
		expect(deletesOf(firstId)).toBe(1);
	});

	it('static data lost: the orphan with our URL is deleted (no duplicates), other webhooks stay', async () => {
		const first = await harness();
		await first.activate();
		const orphanId = nodeStatic(first).webhookId as number;
		// A webhook of some other workflow / tool with another URL.
		const other = await makeHarness(sandbox, 'https://elsewhere.example.com/webhook');
		await other.activate();
		const otherId = nodeStatic(other).webhookId as number;

		const lost = await harness(undefined, {});
		expect(await lost.hook('checkExists')).toBe(false);
		expect(sandbox.control.getWebhook(orphanId)).toBeUndefined();
		expect(sandbox.control.getWebhook(otherId)).toBeDefined();
		await lost.hook('create');

		const ours = (await listWebhooks(sandbox)).filter((h) => h.url === lost.webhookUrl());
		expect(ours).toHaveLength(1);
		expect(ours[0].id).toBe(nodeStatic(lost).webhookId);
	});

	it('a listing failure is thrown and nothing is cleared or deleted', async () => {
		const trigger = await harness();
		await trigger.activate();
		const before = { ...nodeStatic(trigger) };
		sandbox.control.addFault({ method: 'GET', path: '^/webhooks$', kind: 'status', status: 403 });
		await expect(trigger.hook('checkExists')).rejects.toThrow(/no API access/);
		expect(nodeStatic(trigger)).toEqual(before);
		expect(await listWebhooks(sandbox)).toHaveLength(1);
	});

	describe.each([
		['is_active', 'data'],
		['is_active', 'bare'],
		['active', 'data'],
		['active', 'bare'],
		['status', 'data'],
		['status', 'bare'],
	] as const)('active flag %s, envelope %s', (activeFlag, envelope) => {
		it('creates, finds it on restart, and notices deactivation', async () => {
			sandbox.control.reset({ activeFlag, envelope });
			const [probe] = [await listWebhooks(sandbox)];
			expect(probe).toEqual([]);

			const staticData: IDataObject = {};
			const trigger = await harness(undefined, staticData);
			await trigger.activate();
			const id = nodeStatic(trigger).webhookId as number;
			expect(typeof id).toBe('number');
			expect(nodeStatic(trigger).webhookSecret).toBe(sandbox.control.getWebhook(id)!.secret);
			const [record] = await listWebhooks(sandbox);
			expect(record).toHaveProperty(activeFlag);

			expect(await (await harness(undefined, staticData)).hook('checkExists')).toBe(true);
			sandbox.control.deactivateWebhook(id);
			expect(await (await harness(undefined, staticData)).hook('checkExists')).toBe(false);
			expect(sandbox.control.getWebhook(id)).toBeUndefined();
		});
	});
});

describe('create refused with 422', () => {
	beforeEach(() => sandbox.control.setOptions({ allowInsecureWebhookUrls: false }));

	it('production URL: names the URL and WEBHOOK_URL, stores nothing', async () => {
		const trigger = await harness();
		const url = trigger.webhookUrl();
		const error = await trigger.activate().then(
			() => undefined,
			(e: Error & { description?: string }) => e,
		);
		expect(error).toBeDefined();
		expect(error!.message).toContain(url);
		expect(error!.message).toContain('WEBHOOK_URL');
		expect(error!.message).toMatch(/public/i);
		expect(error!.description).toMatch(/Test URLs \(\/webhook-test\/\.\.\.\) on localhost/);
		expect(String(error!.message) + String(error!.description)).not.toContain(DEFAULT_API_KEY);
		expect(nodeStatic(trigger)).toEqual({});
		expect(await listWebhooks(sandbox)).toEqual([]);
	});

	it('test URL: names the /webhook-test/ URL and explains it', async () => {
		const trigger = await harness();
		const url = trigger.webhookUrl(true);
		await expect(trigger.activate({ isTest: true })).rejects.toMatchObject({
			message: expect.stringContaining(url),
			description: expect.stringContaining('This is such a URL'),
		});
		expect(url).toContain('/webhook-test/');
	});

	it('another 422 (too many webhooks) keeps the service wording', async () => {
		sandbox.control.setOptions({ allowInsecureWebhookUrls: true });
		// Each trigger holds one webhook: 10 fill the sandbox's 10.
		for (let i = 0; i < 10; i++) {
			await (await makeHarness(sandbox, `https://other${i}.example.com/webhook`)).activate();
		}
		const trigger = await harness();
		const error = await trigger.activate().then(
			() => undefined,
			(e: Error) => e,
		);
		expect(error?.message).toMatch(/invalid webhooks/);
		expect(error?.message).not.toContain('WEBHOOK_URL');
	});
});

describe('delete (deactivation)', () => {
	it('deletes the webhook, clears static data, returns true', async () => {
		const trigger = await harness();
		await trigger.activate();
		const id = nodeStatic(trigger).webhookId as number;
		expect(await trigger.hook('delete', { activation: 'update' })).toBe(true);
		expect(deletesOf(id)).toBe(1);
		expect(sandbox.control.getWebhook(id)).toBeUndefined();
		expect(nodeStatic(trigger)).toEqual({});
	});

	it('404 (deleted on the server meanwhile) counts as deleted', async () => {
		const trigger = await harness();
		await trigger.activate();
		const id = nodeStatic(trigger).webhookId as number;
		sandbox.control.addFault({
			method: 'DELETE',
			path: '^/webhooks/\\d+$',
			kind: 'status',
			status: 404,
			times: 2,
		});
		expect(await trigger.hook('delete')).toBe(true);
		expect(deletesOf(id)).toBe(1);
		expect(sandbox.control.requests().find((r) => r.method === 'DELETE')?.status).toBe(404);
		expect(nodeStatic(trigger)).toEqual({});
	});

	it("another failure: false, a warning in n8n's log, static data kept so the next checkExists can clean up", async () => {
		const warn = jest.fn();
		const logger = jest
			.spyOn(HookContext.prototype, 'logger', 'get')
			.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
		const staticData: IDataObject = {};
		const trigger = await harness(undefined, staticData);
		await trigger.activate();
		const id = nodeStatic(trigger).webhookId as number;
		// Beyond the transport's retries (a single 5xx is retried: deleting twice is harmless).
		sandbox.control.addFault({
			method: 'DELETE',
			path: '^/webhooks/\\d+$',
			kind: 'status500',
			times: 4,
		});
		expect(await trigger.hook('delete')).toBe(false);
		expect(warn).toHaveBeenCalledWith(
			'Document Scanning Trigger: could not delete the webhook at the service',
			expect.anything(),
		);
		logger.mockRestore();
		expect(nodeStatic(trigger).webhookId).toBe(id);
		expect(sandbox.control.getWebhook(id)).toBeDefined();

		// Reactivated later with other events: the leftover is removed then.
		const again = await harness({ events: ['scan.failed'] }, staticData);
		await again.activate();
		expect(sandbox.control.getWebhook(id)).toBeUndefined();
		expect(await listWebhooks(sandbox)).toHaveLength(1);
	});

	it('nothing stored (static data lost, or another workflow sharing the URL): nothing is read or deleted; the next activation removes a leftover', async () => {
		await (await harness()).activate();
		const [live] = await listWebhooks(sandbox);
		sandbox.control.clearRequests();
		expect(await (await harness()).hook('delete')).toBe(true);
		expect(sandbox.control.requests()).toEqual([]);
		expect(await listWebhooks(sandbox)).toEqual([expect.objectContaining({ id: live.id })]);

		await (await harness()).activate();
		expect((await listWebhooks(sandbox)).map((hook) => hook.id)).not.toContain(live.id);
		expect(await listWebhooks(sandbox)).toHaveLength(1);
	});
});
