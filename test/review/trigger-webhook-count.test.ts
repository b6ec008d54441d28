/**
 * Review of issue 33 §1 from outside: every Document Scanning Trigger now holds two webhooks at
 * the service, its own and its key carrier. The API documentation does not show how many webhooks
 * an account may hold; the sandbox plays 10 (docs/sandbox.md). Before this round ten triggers fit
 * on such an account; now the sixth trigger's activation fails, and the README does not say that
 * a trigger takes two of the account's webhooks.
 */
import { NodeApiError } from 'n8n-workflow';

import { type Sandbox, startSandbox } from '../../sandbox/server';
import { ALL_EVENTS } from '../support/fixtures';
import { listWebhooks, makeHarness } from '../trigger/helpers';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ allowInsecureWebhookUrls: true, processingDelayMs: 20 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.control.reset());

/** Activates trigger `i` (its own webhook URL, as another workflow's trigger); the error, if any. */
async function activate(i: number): Promise<unknown> {
	const trigger = await makeHarness(sandbox, `https://n8n.example.com/w${i}/webhook`, {
		events: ALL_EVENTS,
	});
	return await trigger.activate().then(
		() => undefined,
		(error: unknown) => error,
	);
}

describe('an account that holds at most 10 webhooks (the sandbox’s reading)', () => {
	it('five triggers fill it: the sixth activation is refused by the service', async () => {
		for (let i = 1; i <= 5; i++) expect(await activate(i)).toBeUndefined();
		expect(await listWebhooks(sandbox, true)).toHaveLength(10);
		const sixth = await activate(6);
		expect(sixth).toBeInstanceOf(NodeApiError);
		expect(String((sixth as Error).message)).toMatch(/422|invalid|refused/i);
	});

	test('the refusal of the sixth says a trigger holds two webhooks (its signing key)', async () => {
		for (let i = 1; i <= 5; i++) await activate(i);
		const sixth = (await activate(6)) as NodeApiError;
		expect(`${sixth.message} ${sixth.description ?? ''}`).toMatch(/signing key|two webhooks/i);
	});
});
