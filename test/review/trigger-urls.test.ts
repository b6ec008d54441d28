/**
 * Review of issue 33 §1 (the key carrier) from outside: the trigger finds its webhooks at the
 * service by URL. n8n builds the webhook URL from WEBHOOK_URL as written; the key carrier's URL
 * is built with `new URL()`, which writes the host in lower case and leaves a default port out.
 * A WEBHOOK_URL such as `https://n8n.example.com:443/` or `https://N8N.Example.com/` then gives
 * a carrier whose URL is not "the same" as the node's, and deactivation leaves it at the service.
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
	it('deactivation deletes the key carrier too: no webhook of the node is left at the service', async () => {
		const staticData: IDataObject = {};
		const trigger = await makeHarness(sandbox, webhookBaseUrl, { events: ALL_EVENTS }, staticData);
		await trigger.activate();
		expect(await listWebhooks(sandbox, true)).toHaveLength(2); // the webhook and its carrier

		expect(await trigger.hook('delete', { activation: 'update' })).toBe(true);
		expect(await listWebhooks(sandbox, true)).toEqual([]);
	});

	it('activations after static data was lost (workflow imported, database restored) leave one pair, not one more carrier each time', async () => {
		for (let i = 0; i < 3; i++) {
			const trigger = await makeHarness(sandbox, webhookBaseUrl, { events: ALL_EVENTS }, {});
			await trigger.activate();
		}
		expect(await listWebhooks(sandbox, true)).toHaveLength(2);
	});
});
