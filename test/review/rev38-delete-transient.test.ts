/**
 * Review of issue 38 from outside: "deactivation deletes it". One transient 503 on
 * DELETE /webhooks/{id} (the spec: "500: Internal error; retry the request later") is neither
 * retried by the node nor thrown: `delete` answers false and the webhook stays at the service,
 * active, until 10 failed deliveries deactivate it (a slot of the account held meanwhile, and for
 * good if the workflow stays off). n8n 2.40 retries a teardown that throws (3 attempts, 1 s, 2 s:
 * `deregisterExternalWebhookWithRetry`, packages/cli/src/workflows/triggers/) and reports it as a
 * teardown failure; a `false` skips both.
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

test('deactivation with one transient 503 on DELETE: the webhook is gone, or the failure is thrown for n8n to retry', async () => {
	const staticData: IDataObject = {};
	const trigger = await makeHarness(
		sandbox,
		'https://n8n.example.com/webhook',
		{ events: ALL_EVENTS },
		staticData,
	);
	await trigger.activate();
	sandbox.control.addFault({
		method: 'DELETE',
		path: '^/webhooks/\\d+$',
		kind: 'status',
		status: 503,
		times: 1,
	});

	const outcome = await trigger.hook('delete', { activation: 'update' }).then(
		(answer) => `answered ${String(answer)}`,
		() => 'threw',
	);
	const left = (await listWebhooks(sandbox)).length;
	expect({ outcome, left }).not.toEqual({ outcome: 'answered false', left: 1 });
});
