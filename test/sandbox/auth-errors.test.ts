import { DEFAULT_API_KEY, NO_BUSINESS_API_KEY, Sandbox, startSandbox } from '../../sandbox/server';
import { api, postScan, unwrap } from '../support/sandbox-api';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.control.reset());

describe('authentication', () => {
	it('accepts the key as Bearer token and as X-API-Key, and logs only the scheme', async () => {
		const bearer = await api(sandbox, 'GET', '/account', { scheme: 'bearer' });
		const xApiKey = await api(sandbox, 'GET', '/account', { scheme: 'x-api-key' });
		expect(bearer.status).toBe(200);
		expect(xApiKey.status).toBe(200);
		expect(bearer.headers.get('content-type')).toBe('application/json');

		const log = sandbox.control.requests();
		expect(log.map((r) => [r.method, r.path, r.status, r.authScheme])).toEqual([
			['GET', '/account', 200, 'bearer'],
			['GET', '/account', 200, 'x-api-key'],
		]);
		expect(JSON.stringify(log)).not.toContain(DEFAULT_API_KEY);
	});

	it.each([
		['no key', { key: null }],
		['an unknown Bearer key', { key: 'sk_wrong', scheme: 'bearer' as const }],
		['an unknown X-API-Key', { key: 'sk_wrong', scheme: 'x-api-key' as const }],
	])('answers 401 for %s', async (_label, auth) => {
		const reply = await api(sandbox, 'GET', '/account', auth);
		expect(reply.status).toBe(401);
		expect(reply.body).toEqual({ error: 'unauthenticated', message: expect.any(String) });
		expect(reply.headers.get('content-type')).toBe('application/json');
	});

	it('does not take a non-Bearer Authorization header as a key', async () => {
		const res = await fetch(`${sandbox.baseUrl}/account`, {
			headers: { Authorization: `Basic ${DEFAULT_API_KEY}` },
		});
		expect(res.status).toBe(401);
	});

	it('answers 403 for an account without the Business package, on every endpoint', async () => {
		for (const path of ['/account', '/templates', '/scans', '/webhooks']) {
			const reply = await api(sandbox, 'GET', path, { key: NO_BUSINESS_API_KEY });
			expect([path, reply.status, reply.body.error]).toEqual([path, 403, 'forbidden']);
		}
		const uploadReply = await postScan(sandbox, { key: NO_BUSINESS_API_KEY });
		expect(uploadReply.status).toBe(403);
	});

	it('allows up to 5 keys per account, all usable, and refuses a sixth', async () => {
		const keys = ['k1', 'k2', 'k3', 'k4', 'k5'];
		sandbox.control.createAccount({ apiKeys: keys });
		for (const key of keys)
			expect((await api(sandbox, 'GET', '/account', { key })).status).toBe(200);
		expect(() =>
			sandbox.control.createAccount({ apiKeys: ['a', 'b', 'c', 'd', 'e', 'f'] }),
		).toThrow(/1 to 5/);
		expect(() => sandbox.control.createAccount({ apiKeys: [] })).toThrow(/1 to 5/);
		expect(() => sandbox.control.createAccount({ apiKeys: ['k1'] })).toThrow(/already in use/);
	});

	it('keeps accounts apart: another account sees neither scans nor templates of the first', async () => {
		const created = unwrap((await postScan(sandbox)).body);
		sandbox.control.createAccount({ apiKeys: ['other'] });
		expect((await api(sandbox, 'GET', `/scans/${created.id}`, { key: 'other' })).status).toBe(404);
		expect((await api(sandbox, 'GET', '/templates', { key: 'other' })).body).toEqual({ data: [] });
		expect((await postScan(sandbox, { key: 'other', templateId: 1 })).status).toBe(404);
	});
});

describe('not found and wrong methods', () => {
	it.each([
		['/scans/999', /Scan 999/],
		['/scans/abc', /Scan abc/],
		['/webhooks/999/logs', /Webhook 999/],
		['/nothing-here', /No API route/],
	])('GET %s answers 404 with a message', async (path, message) => {
		const reply = await api(sandbox, 'GET', path);
		expect(reply.status).toBe(404);
		expect(reply.body).toEqual({ error: 'not_found', message: expect.stringMatching(message) });
	});

	it("answers the web server's HTML 404 page, not the API's JSON, outside /api/v1", async () => {
		const res = await fetch(`${sandbox.origin}/api/v2/account`);
		expect(res.status).toBe(404);
		expect(res.headers.get('content-type')).toMatch(/^text\/html/);
		expect(await res.text()).toMatch(/^<!DOCTYPE html>[\s\S]*Not Found[\s\S]*\/api\/v1/);
	});

	it('answers 405 with Allow for a wrong method on a known path', async () => {
		const reply = await api(sandbox, 'DELETE', '/scans');
		expect(reply.status).toBe(405);
		expect(reply.headers.get('allow')).toBe('POST, GET');
		expect(reply.body.error).toBe('method_not_allowed');
	});
});

describe('faults', () => {
	it('status500 answers 500 once, then the endpoint works again', async () => {
		sandbox.control.addFault({ path: '^/account$', kind: 'status500' });
		const first = await api(sandbox, 'GET', '/account');
		const second = await api(sandbox, 'GET', '/account');
		expect(first.status).toBe(500);
		expect(first.body).toEqual({ error: 'internal_error', message: expect.any(String) });
		expect(second.status).toBe(200);
	});

	it('`after` lets that many matching requests through before the fault applies', async () => {
		sandbox.control.addFault({ path: '^/account$', kind: 'status500', after: 2 });
		const statuses = [];
		for (let i = 0; i < 4; i += 1) statuses.push((await api(sandbox, 'GET', '/account')).status);
		expect(statuses).toEqual([200, 200, 500, 200]);
		expect(() => sandbox.control.addFault({ kind: 'drop', after: -1 })).toThrow(
			'after must be a non-negative integer',
		);
	});

	it("'status' answers the given status and headers `times` times, only for the matching method", async () => {
		sandbox.control.addFault({
			method: 'GET',
			path: '^/scans$',
			kind: 'status',
			status: 503,
			headers: { 'Retry-After': '7' },
			times: 2,
		});
		expect((await api(sandbox, 'GET', '/templates')).status).toBe(200);
		const first = await api(sandbox, 'GET', '/scans');
		expect(first.status).toBe(503);
		expect(first.headers.get('retry-after')).toBe('7');
		expect((await postScan(sandbox)).status).toBe(201); // POST /scans is not matched
		expect((await api(sandbox, 'GET', '/scans')).status).toBe(503);
		expect((await api(sandbox, 'GET', '/scans')).status).toBe(200);
	});

	it("'drop' destroys the connection without processing", async () => {
		sandbox.control.addFault({ method: 'POST', path: '^/scans$', kind: 'drop' });
		await expect(postScan(sandbox)).rejects.toThrow();
		expect(sandbox.control.account().used_scans).toBe(0);
		expect(sandbox.control.requests()[0]).toMatchObject({
			path: '/scans',
			status: null,
			fault: 'drop',
		});
	});

	it("'dropAfterCommit' creates and charges the scan but gives no response", async () => {
		sandbox.control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		await expect(postScan(sandbox, { filename: 'committed.pdf' })).rejects.toThrow();
		expect(sandbox.control.account().used_scans).toBe(1);
		const list = unwrap((await api(sandbox, 'GET', '/scans')).body);
		expect(list.map((s: { filename: string }) => s.filename)).toEqual(['committed.pdf']);
		expect(sandbox.control.requests()[0]).toMatchObject({ status: 201, fault: 'dropAfterCommit' });
	});

	it("'latency' delays and then answers normally", async () => {
		sandbox.control.addFault({ path: '^/account$', kind: 'latency', latencyMs: 150 });
		const started = Date.now();
		const reply = await api(sandbox, 'GET', '/account');
		expect(reply.status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(140);
	});

	it('rejects invalid faults and clears faults', async () => {
		expect(() => sandbox.control.addFault({ kind: 'status' })).toThrow(/needs a status/);
		expect(() => sandbox.control.addFault({ kind: 'latency', path: '(' })).toThrow(
			/regular expression/,
		);
		sandbox.control.addFault({ kind: 'status500', times: 5 });
		sandbox.control.clearFaults();
		expect((await api(sandbox, 'GET', '/account')).status).toBe(200);
	});
});
