/**
 * Review of issue 33 §1 from outside: the trigger finds its webhooks at the service by its URL,
 * "or the stored ID (a URL changed since)". Static data travels with a workflow exported and
 * imported with n8n's CLI (`n8n export:workflow` / `import:workflow` keep `staticData`), e.g. from
 * a staging n8n to a production n8n that use the same scanning account. The imported copy then
 * holds the ID of the other instance's live webhook, whose URL is not its own: its activation
 * deletes that webhook (and deactivating it would too), and the other instance's trigger receives
 * nothing more, without a word. So a webhook found only by its stored ID is left alone.
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

const STAGING = 'https://staging.n8n.example.com/webhook';
const PRODUCTION = 'https://n8n.example.com/webhook';

async function activateCopy(): Promise<{ staging: IDataObject; copy: IDataObject }> {
	const staging: IDataObject = {};
	await (await makeHarness(sandbox, STAGING, { events: ALL_EVENTS }, staging)).activate();
	const copy = JSON.parse(JSON.stringify(staging)) as IDataObject; // exported with the workflow
	await (await makeHarness(sandbox, PRODUCTION, { events: ALL_EVENTS }, copy)).activate();
	return { staging, copy };
}

const urlsAtService = async () =>
	(await listWebhooks(sandbox)).map((hook) => String(hook.url).replace(/\?.*$/, ''));

// Static data alone cannot tell an imported copy from the same n8n whose WEBHOOK_URL changed (last
// test): a webhook found only by its stored ID, with another URL, is left alone and named in n8n's
// log (a changed WEBHOOK_URL leaves the old webhook, which the service deactivates after 10 failed
// deliveries, or the user deletes).
test('activating the imported copy leaves the other instance’s webhook alone', async () => {
	await activateCopy();
	const urls = await urlsAtService();
	expect(urls.filter((url) => url.startsWith(STAGING))).toHaveLength(1);
	expect(urls.filter((url) => url.startsWith(PRODUCTION))).toHaveLength(1);
});

test('deactivating the imported copy deletes only its own webhooks', async () => {
	const { copy } = await activateCopy();
	const production = await makeHarness(sandbox, PRODUCTION, { events: ALL_EVENTS }, copy);
	expect(await production.hook('delete', { activation: 'update' })).toBe(true);
	expect((await urlsAtService()).every((url) => url.startsWith(STAGING))).toBe(true);
	expect(await urlsAtService()).toHaveLength(1);
});

test('a WEBHOOK_URL changed since activation: the old webhook is left alone (it may be another n8n’s), the new one registered', async () => {
	const stored: IDataObject = {};
	await (await makeHarness(sandbox, STAGING, { events: ALL_EVENTS }, stored)).activate();
	// Same n8n, new address: the old webhook's deliveries fail the new secret (401) until the service deactivates it.
	await (await makeHarness(sandbox, PRODUCTION, { events: ALL_EVENTS }, stored)).activate();
	const urls = await urlsAtService();
	expect(urls.filter((url) => url.startsWith(PRODUCTION))).toHaveLength(1);
	expect(urls.filter((url) => url.startsWith(STAGING))).toHaveLength(1);
});
