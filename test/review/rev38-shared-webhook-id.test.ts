/**
 * Review of issue 38 from outside: deactivation deletes "every webhook of this node at the
 * service", found by URL alone, also when the node never registered one (no stored ID).
 *
 * Two workflows can hold a trigger with the same `webhookId` (the shipped examples carry fixed
 * ones, e.g. examples/scan-events.json, and `n8n import:workflow` keeps them): both then have the
 * same production URL (`<WEBHOOK_URL>/webhook/<webhookId>/webhook`). Activating the second one
 * fails in n8n 1.123 at `storeWebhook` (WebhookPathTakenError); `ActiveWorkflowManager.addWebhooks`
 * then calls `clearWebhooks(secondWorkflowId)`, which runs the node's `delete` for the second
 * workflow (packages/cli/src/active-workflow-manager.ts; the same in 2.40 when its publication
 * service is off; 2.40's default `WebhookTriggerRegistrar.register` skips the cleanup when
 * `storeWebhook` failed). The editor's import keeps a `webhookId` for every node type but the
 * Form Trigger (UPDATE_WEBHOOK_ID_NODE_TYPES). The second workflow never registered anything, yet
 * its `delete` removes the first workflow's live webhook: the first stays active in n8n and
 * receives nothing more, silently.
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

const URL_BASE = 'https://n8n.example.com/webhook';

test('the delete n8n runs for a workflow whose activation failed (path taken) leaves the other workflow’s webhook alone', async () => {
	const first: IDataObject = {};
	await (await makeHarness(sandbox, URL_BASE, { events: ALL_EVENTS }, first)).activate();
	const [live] = await listWebhooks(sandbox);

	// The copy: same webhookId, never activated (empty static data); n8n's cleanup runs `delete`.
	const copy = await makeHarness(sandbox, URL_BASE, { events: ALL_EVENTS }, {});
	await copy.hook('delete', { activation: 'update' });

	expect((await listWebhooks(sandbox)).map((hook) => hook.id)).toEqual([live.id]);
});
