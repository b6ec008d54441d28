/**
 * Review of issue 38 from outside: cases tried that held (kept as passing checks).
 * - A test webhook (/webhook-test/) next to the active production one. n8n's TestWebhooks builds
 *   its workflow with `staticData: {}` and keeps the test webhook's static data in the
 *   registration (packages/cli/src/webhooks/test-webhooks.ts), so the test run has its own.
 * - An upgrade from the key-carrier design: the main webhook, its carrier (`?ds_seal=…`) and
 *   static data with `webhookKeyAtService`, `recentDeliveries` and `forgottenUpTo`.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox, startSandbox } from '../../sandbox/server';
import { ALL_EVENTS } from '../support/fixtures';
import { type Receiver, startReceiver } from '../support/receiver';
import type { TriggerHarness } from '../support/trigger-harness';
import { listWebhooks, makeHarness } from '../trigger/helpers';

const NODE = 'node:Document Scanning Trigger';
let sandbox: Sandbox;
let receiver: Receiver;
let current: TriggerHarness;

beforeAll(async () => {
	sandbox = await startSandbox({ allowInsecureWebhookUrls: true, processingDelayMs: 20 });
	receiver = await startReceiver(() => current);
});
afterAll(async () => {
	await receiver.close();
	await sandbox.close();
});
beforeEach(() => {
	sandbox.control.reset();
	receiver.results.splice(0);
});

const api = async (method: string, path: string, body?: unknown) =>
	(await (
		await fetch(`${sandbox.baseUrl}${path}`, {
			method,
			headers: {
				Accept: 'application/json',
				'Content-Type': 'application/json',
				Authorization: `Bearer ${DEFAULT_API_KEY}`,
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		})
	).json()) as IDataObject;

test('a test webhook next to the production one: listening, a restart meanwhile and stopping leave production’s webhook and secret alone', async () => {
	const production: IDataObject = {};
	current = await makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS }, production);
	await current.activate();
	const live = (production[NODE] as IDataObject).webhookId;

	const listening = await makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS }, {});
	await listening.activate({ isTest: true });
	expect(await listWebhooks(sandbox)).toHaveLength(2);
	await (
		await makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS }, production)
	).activate();
	expect(await listening.hook('delete', { isTest: true })).toBe(true);

	expect((await listWebhooks(sandbox)).map((hook) => hook.id)).toEqual([live]);
	const record = await sandbox.control.deliver(Number(live), 'scan.completed');
	expect(record.status).toBe(200);
	expect((await receiver.waitFor(1))[0].workflowData).toBeDefined();
});

test('upgrade from the key-carrier design: one webhook left, the old keys gone, deliveries verified', async () => {
	current = await makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS }, {});
	const url = current.webhookUrl();
	const created = (await api('POST', '/webhooks', { name: 'n8n', url, events: ALL_EVENTS }))
		.data as IDataObject;
	await api('POST', '/webhooks', {
		name: 'n8n',
		url: `${url}?ds_seal=AAAA`,
		events: ['scan.failed'],
	});
	const staticData: IDataObject = {
		[NODE]: {
			webhookId: created.id,
			webhookSecret: created.secret,
			webhookUrl: url,
			webhookEvents: ALL_EVENTS,
			webhookKeyAtService: true,
			recentDeliveries: { 'scan.completed:1:abc': 1 },
			forgottenUpTo: 1,
		},
	};
	current = await makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS }, staticData);
	await current.activate();

	const left = await listWebhooks(sandbox);
	expect(left).toHaveLength(1);
	expect(String(left[0].url)).not.toContain('?');
	expect(Object.keys(staticData[NODE] as IDataObject).sort()).toEqual([
		'webhookEvents',
		'webhookId',
		'webhookSecret',
		'webhookUrl',
	]);
	const record = await sandbox.control.deliver(Number(left[0].id), 'scan.completed');
	expect(record.status).toBe(200);
});
