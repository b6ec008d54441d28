/**
 * The transport module through the engine: retries of safe requests, Retry-After on 429,
 * network failures worded for the user, and the response shapes the spec leaves open.
 */
import { DEFAULT_API_KEY, startSandbox, type Sandbox } from '../../sandbox/server';
import { isLastPage, unwrapList, unwrapRecord } from '../../nodes/DocumentScanning/transport';
import { runNode } from '../harness/n8n';

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
		expect(error?.message).toBe('Rate limit reached: more than 200 scans in the last hour (item 0)');
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

describe('network failures', () => {
	test('an unreachable service is named by host, without the key, after the retries', async () => {
		const closed = await startSandbox();
		const baseUrl = closed.baseUrl;
		await closed.close();
		const { error, run } = await runNode({ parameters: getAccount, env: { baseUrl, apiKey: DEFAULT_API_KEY } });
		expect(error?.message).toMatch(/^Could not reach the Document Scanning API at http:\/\/127\.0\.0\.1:\d+ \(item 0\)$/);
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
		expect(unwrapList({ data: [{ id: 1 }], meta: { last_page: 1 }, links: { next: null } })).toEqual({
			items: [{ id: 1 }],
			meta: { last_page: 1 },
			links: { next: null },
		});
		expect(unwrapList({ data: { data: [{ id: 3 }] } }).items).toEqual([{ id: 3 }]);
		expect(unwrapList({ unexpected: true }).items).toEqual([]);
	});

	test('meta and links end a listing', () => {
		expect(isLastPage({ items: [], meta: { current_page: 3, last_page: 3 } }, 3)).toBe(true);
		expect(isLastPage({ items: [], meta: { current_page: 2, last_page: 3 } }, 2)).toBe(false);
		expect(isLastPage({ items: [], meta: { current_page: 2, per_page: 25, total: 50 } }, 2)).toBe(true);
		expect(isLastPage({ items: [], links: { next: null } }, 1)).toBe(true);
		expect(isLastPage({ items: [], links: { next: 'https://x/scans?page=2' } }, 1)).toBe(false);
		expect(isLastPage({ items: [] }, 1)).toBe(false);
	});
});
