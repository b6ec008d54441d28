/**
 * The trigger finds its webhook at the service by URL. n8n builds the webhook URL from
 * WEBHOOK_URL as written; a service may normalise it (host in lower case, a default port left
 * out). With a WEBHOOK_URL such as `https://n8n.example.com:443/` or `https://N8N.Example.com/`
 * the webhook is still found as the node's, and deactivation leaves nothing at the service.
 */
import type { IDataObject } from 'n8n-workflow';

import { type Sandbox, startSandbox } from '../../sandbox/server';
import { ALL_EVENTS } from '../support/fixtures';
import { listWebhooks, makeHarness } from '../trigger/helpers';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ allowInsecureWebhookUrls: true, processingDelayMs: 20 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.control.reset());

describe.each([
	['an explicit default port', 'https://n8n.example.com:443/webhook'],
	['capitals in the host name', 'https://N8N.Example.com/webhook'],
])('WEBHOOK_URL with %s', (_label, webhookBaseUrl) => {
	it('deactivation deletes the webhook: none of the node is left at the service', async () => {
		const staticData: IDataObject = {};
		const trigger = await makeHarness(sandbox, webhookBaseUrl, { events: ALL_EVENTS }, staticData);
		await trigger.activate();
		expect(await listWebhooks(sandbox)).toHaveLength(1);

		expect(await trigger.hook('delete', { activation: 'update' })).toBe(true);
		expect(await listWebhooks(sandbox)).toEqual([]);
	});

	it('activations after static data was lost (workflow imported, database restored) leave one webhook, not one more each time', async () => {
		for (let i = 0; i < 3; i++) {
			const trigger = await makeHarness(sandbox, webhookBaseUrl, { events: ALL_EVENTS }, {});
			await trigger.activate();
		}
		expect(await listWebhooks(sandbox)).toHaveLength(1);
	});
});
