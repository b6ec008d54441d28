import {
	DEFAULT_API_KEY,
	NO_BUSINESS_API_KEY,
	startSandbox,
	type Sandbox,
} from '../../sandbox/server';
import { runCredentialTest } from '../support/credential-test';
import { loadPackage } from '../support/package';
import { runNode } from '../support/run-node';
import { TriggerHarness } from '../support/trigger-harness';
import { PollHarness } from '../support/poll-harness';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.control.reset());

describe('credential type documentScanningApi', () => {
	test('declares the contract properties', async () => {
		const { credentialTypes } = await loadPackage();
		const type = credentialTypes.documentScanningApi;
		expect(type.displayName).toBe('Document Scanning API');
		const byName = Object.fromEntries(type.properties.map((p) => [p.name, p]));
		expect(byName.baseUrl).toMatchObject({ type: 'string', required: true });
		expect(byName.apiKey).toMatchObject({ type: 'string', typeOptions: { password: true } });
		expect(byName.authHeader).toMatchObject({ type: 'options', default: 'authorization' });
		expect(byName.authHeader.options?.map((o) => (o as { value: string }).value)).toEqual([
			'authorization',
			'xApiKey',
		]);
	});

	test.each([
		['authorization', 'bearer'],
		['xApiKey', 'x-api-key'],
	] as const)('authHeader %s sends the key as %s on node requests', async (authHeader, scheme) => {
		const { output, error } = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY, authHeader },
		});
		expect(error).toBeUndefined();
		expect(output[0].json).toMatchObject({
			remaining_scans: 2000,
			total_scans: 2000,
			used_scans: 0,
		});
		const requests = sandbox.control.requests();
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({
			method: 'GET',
			path: '/account',
			status: 200,
			authScheme: scheme,
		});
	});

	test('a trailing slash on the base URL is tolerated', async () => {
		const { output, error } = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			env: { baseUrl: `${sandbox.baseUrl}//`, apiKey: DEFAULT_API_KEY },
		});
		expect(error).toBeUndefined();
		expect(output[0].json.remaining_scans).toBe(2000);
		expect(sandbox.control.requests()[0].path).toBe('/account');
	});

	test('a base URL that is not http(s) is refused with a clear message before any request', async () => {
		const { error } = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			env: { baseUrl: 'ftp://scan.example.com/api/v1', apiKey: DEFAULT_API_KEY },
		});
		expect(error?.message).toBe(
			'The Base URL of the Document Scanning API credential must start with http:// or https://',
		);
		expect(sandbox.control.requests()).toHaveLength(0);
	});

	test('a rejected key fails with the 401 wording and never shows the key', async () => {
		const badKey = 'sk_live_this_key_is_wrong_123';
		const { error, run } = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			env: { baseUrl: sandbox.baseUrl, apiKey: badKey },
		});
		expect(error?.message).toMatch(/^Authentication failed/);
		expect(error?.description).toMatch(/API key/);
		expect(JSON.stringify(run)).not.toContain(badKey);
	});
});

describe('credential test (GET /account)', () => {
	test.each(['authorization', 'xApiKey'])(
		'succeeds with a valid key sent as %s',
		async (authHeader) => {
			const outcome = await runCredentialTest({
				baseUrl: `${sandbox.baseUrl}/`,
				apiKey: DEFAULT_API_KEY,
				authHeader,
			});
			expect(outcome.url).toBe(`${sandbox.baseUrl}/account`);
			expect(outcome.headerNames).toContain(
				authHeader === 'xApiKey' ? 'X-API-Key' : 'Authorization',
			);
			expect(outcome.status).toBe(200);
			expect(sandbox.control.requests()[0]).toMatchObject({ path: '/account', status: 200 });
		},
	);

	test('fails with 401 for a wrong key and 403 without the Business package', async () => {
		const wrong = await runCredentialTest({
			baseUrl: sandbox.baseUrl,
			apiKey: 'nope',
			authHeader: 'authorization',
		});
		expect(wrong.status).toBe(401);
		const noBusiness = await runCredentialTest({
			baseUrl: sandbox.baseUrl,
			apiKey: NO_BUSINESS_API_KEY,
			authHeader: 'authorization',
		});
		expect(noBusiness.status).toBe(403);
	});

	test("n8n 2.x shows the nodes' words for 401, 403 and a Base URL without /api/v1, not the status text", async () => {
		const shown = async (baseUrl: string, apiKey: string) =>
			(await runCredentialTest({ baseUrl, apiKey, authHeader: 'authorization' })).shown;
		expect(await shown(sandbox.baseUrl, 'nope')).toMatch(
			/^Authentication failed: the API key is missing or not valid\. Check the API key/,
		);
		expect(await shown(sandbox.baseUrl, NO_BUSINESS_API_KEY)).toMatch(
			/^This account has no API access\. API access is part of the "Business" package/,
		);
		expect(await shown(sandbox.baseUrl.replace(/\/api\/v1$/, ''), DEFAULT_API_KEY)).toMatch(
			/^Not found: the Base URL is probably missing the API version prefix/,
		);
		expect(await shown(sandbox.baseUrl, DEFAULT_API_KEY)).toBe('Connection successful!');
		expect(await shown(sandbox.baseUrl, 'nope')).not.toContain('nope');
	});

	test('names the problem when the base URL is not http(s)', async () => {
		const outcome = await runCredentialTest({
			baseUrl: 'scan.example.com/api/v1',
			apiKey: DEFAULT_API_KEY,
			authHeader: 'authorization',
		});
		expect(outcome.status).toBeUndefined();
		expect(outcome.url).toContain('base-url-must-start-with-http-or-https.invalid');
		expect(outcome.networkError).toMatch(/base-url-must-start-with-http-or-https\.invalid/);
	});
});

/**
 * A query, a fragment or user:password@ in the Base URL would send requests elsewhere or
 * swap the key for Basic auth: refused before any request, by the node and the credential test.
 */
describe('Base URL with a query, a fragment or user:password@', () => {
	const cases = [
		[
			'a query',
			(base: string) => `${base}?x=y`,
			/must not contain a query/,
			'base-url-must-not-contain-a-query.invalid',
		],
		[
			'an empty query',
			(base: string) => `${base}?`,
			/must not contain a query/,
			'base-url-must-not-contain-a-query.invalid',
		],
		[
			'a fragment',
			(base: string) => `${base}#frag`,
			/must not contain a fragment/,
			'base-url-must-not-contain-a-fragment.invalid',
		],
		[
			'user:password@',
			(base: string) => base.replace('http://', 'http://user:pw-secret-123@'),
			/must not contain a user name or password/,
			'base-url-must-not-contain-user-or-password.invalid',
		],
		[
			'a user name only',
			(base: string) => base.replace('http://', 'http://user@'),
			/must not contain a user name or password/,
			'base-url-must-not-contain-user-or-password.invalid',
		],
	] as const;

	test.each(cases)(
		'%s is refused by the node with a message naming the field, and nothing is sent',
		async (_label, make, message) => {
			const { error, run } = await runNode({
				parameters: { resource: 'account', operation: 'get' },
				env: { baseUrl: make(sandbox.baseUrl), apiKey: DEFAULT_API_KEY },
			});
			expect(error?.message).toMatch(/^The Base URL of the Document Scanning API credential /);
			expect(error?.message).toMatch(message);
			expect(error?.description).toMatch(/https:\/\/scan\.example\.com\/api\/v1/);
			expect(sandbox.control.requests()).toHaveLength(0);
			expect(JSON.stringify(run)).not.toContain('pw-secret-123');
		},
	);

	test.each(cases)(
		'%s fails the credential test with an address naming the problem',
		async (_label, make, _message, host) => {
			const outcome = await runCredentialTest({
				baseUrl: make(sandbox.baseUrl),
				apiKey: DEFAULT_API_KEY,
				authHeader: 'authorization',
			});
			expect(outcome.status).toBeUndefined();
			expect(outcome.url).toBe(`http://${host}/account`);
			expect(outcome.networkError).toContain(host);
			expect(sandbox.control.requests()).toHaveLength(0);
		},
	);

	test('an "@" in the path after the host is not taken for user info', async () => {
		const atInPath = await runCredentialTest({
			baseUrl: `${sandbox.baseUrl}/@x`,
			apiKey: DEFAULT_API_KEY,
			authHeader: 'authorization',
		});
		expect(atInPath.url).toBe(`${sandbox.baseUrl}/@x/account`);
		const { error } = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			env: { baseUrl: `${sandbox.baseUrl}/@x`, apiKey: DEFAULT_API_KEY },
		});
		// Reaches the server (a 404 of a wrong path), so it was not taken for user info.
		expect(error?.message).toMatch(/^Not found/);
	});

	test('the webhook trigger refuses it on activation, before any request', async () => {
		const harness = await TriggerHarness.create({
			parameters: { events: ['scan.completed'] },
			env: { baseUrl: `${sandbox.baseUrl}#frag`, apiKey: DEFAULT_API_KEY },
			webhookBaseUrl: 'https://n8n.example.com',
		});
		await expect(harness.activate()).rejects.toThrow(
			/Base URL of the Document Scanning API credential must not contain a fragment/,
		);
		expect(sandbox.control.requests()).toHaveLength(0);
	});

	test('the poll trigger refuses it on every poll, before any request', async () => {
		const poll = await PollHarness.create({
			parameters: { events: ['scan.completed'] },
			env: { baseUrl: `${sandbox.baseUrl}?page=9`, apiKey: DEFAULT_API_KEY },
		});
		await expect(poll.activate()).rejects.toThrow(
			/Base URL of the Document Scanning API credential must not contain a query/,
		);
		expect(sandbox.control.requests()).toHaveLength(0);
	});
});
