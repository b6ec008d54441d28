/**
 * The transport module through the engine: retries of safe requests, Retry-After on 429,
 * network failures worded for the user, and the response shapes the spec leaves open.
 */
import { DEFAULT_API_KEY, startSandbox, type Sandbox } from '../../sandbox/server';
import { unwrapList, unwrapRecord } from '../../nodes/shared/transport';
import { isApiErrorBody } from '../../nodes/shared/transport/baseUrl';
import { runNode } from '../support/run-node';

let sandbox: Sandbox;
const env = () => ({ baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY });
const getAccount = { resource: 'account', operation: 'get' };

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.control.reset());

describe('retries', () => {
	test('a GET whose connection is dropped is sent again and succeeds', async () => {
		sandbox.control.addFault({ method: 'GET', path: '^/account$', kind: 'drop' });
		const { output, error } = await runNode({ parameters: getAccount, env: env() });
		expect(error).toBeUndefined();
		expect(output[0].json.remaining_scans).toBe(2000);
		const requests = sandbox.control.requests().filter((r) => r.path === '/account');
		expect(requests.map((r) => r.status)).toEqual([null, 200]);
	});

	test('a 429 with a short Retry-After is waited for and sent once more', async () => {
		sandbox.control.addFault({
			method: 'GET',
			path: '^/account$',
			kind: 'status',
			status: 429,
			headers: { 'Retry-After': '1' },
		});
		const started = Date.now();
		const { output, error } = await runNode({ parameters: getAccount, env: env() });
		expect(error).toBeUndefined();
		expect(output[0].json.remaining_scans).toBe(2000);
		expect(Date.now() - started).toBeGreaterThanOrEqual(900);
		expect(sandbox.control.requests().map((r) => r.status)).toEqual([429, 200]);
	});

	test('a 429 without Retry-After fails at once with the rolling-hour wording', async () => {
		sandbox.control.addFault({ method: 'GET', path: '^/account$', kind: 'status', status: 429 });
		const { error } = await runNode({ parameters: getAccount, env: env() });
		expect(error?.message).toBe(
			'Rate limit reached: more than 200 scans in the last hour (item 0)',
		);
		expect(error?.description).toMatch(/rolling hour/);
		expect(sandbox.control.requests()).toHaveLength(1);
	});

	test('a 429 asking for a long wait is not waited for', async () => {
		sandbox.control.addFault({
			method: 'GET',
			path: '^/account$',
			kind: 'status',
			status: 429,
			headers: { 'Retry-After': '1800' },
		});
		const { error } = await runNode({ parameters: getAccount, env: env() });
		expect(error?.description).toMatch(/wait 1800 seconds/);
		expect(sandbox.control.requests()).toHaveLength(1);
	});
});

describe('404 wording', () => {
	test('a Base URL without the version prefix gets a 404 page and is blamed, not the ID', async () => {
		const { error } = await runNode({
			parameters: { resource: 'scan', operation: 'get', scanId: '1' },
			env: { baseUrl: sandbox.origin, apiKey: DEFAULT_API_KEY },
		});
		expect(sandbox.control.requests()).toEqual([
			expect.objectContaining({ path: '/scans/1', status: 404 }),
		]);
		expect(error?.message).toBe(
			'Not found: the Base URL is probably missing the API version prefix (e.g. /api/v1) (item 0)',
		);
		expect(error?.description).toMatch(/Base URL ends in the version prefix/);
		expect(error?.description).not.toMatch(/Check the ID/);
		// The web server's page is not repeated to the user.
		expect(JSON.stringify(error)).not.toMatch(/<html|<h1/i);
	});

	test('a 404 page for GET /account (the credential test path) says the same', async () => {
		const { error } = await runNode({
			parameters: getAccount,
			env: { baseUrl: `${sandbox.origin}/api`, apiKey: DEFAULT_API_KEY },
		});
		expect(error?.message).toMatch(
			/^Not found: the Base URL is probably missing the API version prefix/,
		);
	});

	test("a 404 in the API's JSON (unknown scan) still asks to check the ID", async () => {
		const { error } = await runNode({
			parameters: { resource: 'scan', operation: 'get', scanId: '999' },
			env: env(),
		});
		expect(error?.message).toBe('Not found: Scan 999 not found. (item 0)');
		expect(error?.description).toMatch(/^Check the ID/);
	});

	test.each([
		['JSON of another kind', { message: 'Not Found' }, false],
		['JSON of another kind, as text', '{"detail":"Not Found"}', false],
		['an HTML page', '<html><body>Not Found</body></html>', false],
		['an empty body', '', false],
		['no body', undefined, false],
		["the API's JSON", { error: 'not_found', message: 'Scan 5 not found.' }, true],
		["the API's JSON, as text", '{"error":"not_found"}', true],
		["the API's JSON in a data envelope", { data: { error: 'not_found' } }, true],
	] as const)('a 404 body of %s is told apart (unit)', (_label, body, api) => {
		expect(isApiErrorBody(body)).toBe(api);
	});
});

describe('network failures', () => {
	test('an unreachable service is named by host, without the key, after the retries', async () => {
		const closed = await startSandbox();
		const baseUrl = closed.baseUrl;
		await closed.close();
		const { error, run } = await runNode({
			parameters: getAccount,
			env: { baseUrl, apiKey: DEFAULT_API_KEY },
		});
		expect(error?.message).toMatch(
			/^Could not reach the Document Scanning API at http:\/\/127\.0\.0\.1:\d+ \(item 0\)$/,
		);
		expect(error?.description).toMatch(/^Network error ECONNREFUSED\./);
		expect(JSON.stringify(run)).not.toContain(DEFAULT_API_KEY);
	});
});

describe('response shapes (unit)', () => {
	test('a record comes bare or under data', () => {
		expect(unwrapRecord({ data: { id: 1 } })).toEqual({ id: 1 });
		expect(unwrapRecord({ id: 1, data: { x: 1 } })).toEqual({ id: 1, data: { x: 1 } });
		expect(unwrapRecord({ remaining_scans: 3 })).toEqual({ remaining_scans: 3 });
		expect(unwrapRecord('{"data":{"id":2}}')).toEqual({ id: 2 });
		expect(unwrapRecord('')).toEqual({});
	});

	test('a list comes bare or under data, with meta and links kept', () => {
		expect(unwrapList([{ id: 1 }])).toEqual({ items: [{ id: 1 }] });
		expect(
			unwrapList({ data: [{ id: 1 }], meta: { last_page: 1 }, links: { next: null } }),
		).toEqual({
			items: [{ id: 1 }],
			meta: { last_page: 1 },
			links: { next: null },
		});
		expect(unwrapList({ data: { data: [{ id: 3 }] } }).items).toEqual([{ id: 3 }]);
		expect(unwrapList({ unexpected: true }).items).toEqual([]);
	});
});
