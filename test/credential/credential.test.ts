import { DEFAULT_API_KEY, NO_BUSINESS_API_KEY, startSandbox, type Sandbox } from '../../sandbox/server';
import { loadPackage, runCredentialTest, runNode } from '../harness/n8n';

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
		expect(output[0].json).toMatchObject({ remaining_scans: 2000, total_scans: 2000, used_scans: 0 });
		const requests = sandbox.control.requests();
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method: 'GET', path: '/account', status: 200, authScheme: scheme });
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
	test.each(['authorization', 'xApiKey'])('succeeds with a valid key sent as %s', async (authHeader) => {
		const outcome = await runCredentialTest({ baseUrl: `${sandbox.baseUrl}/`, apiKey: DEFAULT_API_KEY, authHeader });
		expect(outcome.url).toBe(`${sandbox.baseUrl}/account`);
		expect(outcome.headerNames).toContain(authHeader === 'xApiKey' ? 'X-API-Key' : 'Authorization');
		expect(outcome.status).toBe(200);
		expect(sandbox.control.requests()[0]).toMatchObject({ path: '/account', status: 200 });
	});

	test('fails with 401 for a wrong key and 403 without the Business package', async () => {
		const wrong = await runCredentialTest({ baseUrl: sandbox.baseUrl, apiKey: 'nope', authHeader: 'authorization' });
		expect(wrong.status).toBe(401);
		const noBusiness = await runCredentialTest({
			baseUrl: sandbox.baseUrl,
			apiKey: NO_BUSINESS_API_KEY,
			authHeader: 'authorization',
		});
		expect(noBusiness.status).toBe(403);
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
