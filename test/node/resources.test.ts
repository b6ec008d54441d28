/** Template, Account and Webhook operations, credential header modes, the template list search. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { DEFAULT_API_KEY, NO_BUSINESS_API_KEY } from '../../sandbox/server';
import { callListSearch, jsonOf, pairedOf, run, useSandbox } from './helpers';

const sb = useSandbox();

const webhook = (operation: string, extra: Record<string, unknown> = {}) => ({
	resource: 'webhook',
	operation,
	...extra,
});
const createParams = (extra: Record<string, unknown> = {}) =>
	webhook('create', {
		name: 'ERP import',
		url: 'https://hooks.example.com/scans',
		events: ['scan.completed', 'scan.failed'],
		...extra,
	});

describe('Template → Get Many', () => {
	test('Return All lists the active templates only', async () => {
		const result = await run(sb.env(), {
			resource: 'template',
			operation: 'getAll',
			returnAll: true,
		});
		expect(result.error).toBeUndefined();
		expect(jsonOf(result).map((t) => [t.id, t.name, t.extraction_mode])).toEqual([
			[1, 'Invoice', 'scalar'],
			[2, 'Delivery note', 'tabular'],
			[3, 'Invoice with line items', 'mixed'],
			[4, 'Receipt photo', 'vision'],
		]);
	});

	test('Limit', async () => {
		const result = await run(sb.env(), {
			resource: 'template',
			operation: 'getAll',
			returnAll: false,
			limit: 2,
		});
		expect(jsonOf(result).map((t) => t.id)).toEqual([1, 2]);
	});
});

describe('Account → Get', () => {
	test('outputs the balance, with either credential header', async () => {
		for (const authHeader of ['authorization', 'xApiKey'] as const) {
			sb.get().control.clearRequests();
			const result = await run(sb.env({ authHeader }), { resource: 'account', operation: 'get' });
			expect(jsonOf(result)).toEqual([{ remaining_scans: 2000, total_scans: 2000, used_scans: 0 }]);
			expect(
				sb
					.get()
					.control.requests()
					.map((r) => r.authScheme),
			).toEqual([authHeader === 'xApiKey' ? 'x-api-key' : 'bearer']);
		}
	});

	test('401 with a wrong key: message, description, no key in the error', async () => {
		const result = await run(sb.env({ apiKey: 'sk_wrong_key_123' }), {
			resource: 'account',
			operation: 'get',
		});
		expect(result.error?.message).toBe(
			'Authentication failed: the API key is missing or not valid (item 0)',
		);
		expect(result.error?.description).toMatch(/Check the API key/);
		expect(result.error?.httpCode).toBe('401');
		expect(JSON.stringify(result.error)).not.toContain('sk_wrong_key_123');
	});

	test('401 in the X-API-Key mode too', async () => {
		const result = await run(sb.env({ apiKey: 'nope', authHeader: 'xApiKey' }), {
			resource: 'account',
			operation: 'get',
		});
		expect(result.error?.httpCode).toBe('401');
		expect(sb.get().control.requests()[0].authScheme).toBe('x-api-key');
	});

	test('403 without the Business package', async () => {
		const result = await run(sb.env({ apiKey: NO_BUSINESS_API_KEY }), {
			resource: 'account',
			operation: 'get',
		});
		expect(result.error?.message).toBe('This account has no API access (item 0)');
		expect(result.error?.description).toMatch(/"Business" package/);
		expect(JSON.stringify(result.error)).not.toContain(NO_BUSINESS_API_KEY);
	});

	test('Continue On Fail with an auth error: one error item per input item', async () => {
		const result = await run(
			sb.env({ apiKey: 'bad' }),
			{ resource: 'account', operation: 'get' },
			[{ json: {} }, { json: {} }],
			true,
		);
		expect(jsonOf(result).map((o) => o.httpCode)).toEqual(['401', '401']);
		expect(pairedOf(result)).toEqual([0, 1]);
	});
});

describe('Webhook', () => {
	test('Create outputs the record including the signing secret shown once', async () => {
		const result = await run(sb.env(), createParams({ events: ['scan.completed'] }));
		expect(result.error).toBeUndefined();
		const [created] = jsonOf(result);
		const stored = sb.get().control.getWebhook(created.id as number)!;
		expect(created).toEqual(
			expect.objectContaining({
				id: stored.id,
				name: 'ERP import',
				url: 'https://hooks.example.com/scans',
				events: ['scan.completed'],
				secret: stored.secret,
			}),
		);
		expect(String(created.secret)).toMatch(/^whsec_/);
		expect(JSON.stringify(result.run.data)).not.toContain(DEFAULT_API_KEY);
	});

	test('Create sends JSON with name, url and events (bare envelope too)', async () => {
		sb.get().control.reset({ envelope: 'bare' });
		const result = await run(sb.env(), createParams({ events: '={{ "scan.failed" }}' }));
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({ events: ['scan.failed'], secret: expect.any(String) }),
		);
	});

	test('Create with an http URL: 422 naming the url field', async () => {
		const result = await run(sb.env(), createParams({ url: 'http://hooks.example.com/scans' }));
		expect(result.error?.message).toBe('The API rejected the request: invalid url (item 0)');
		expect(result.error?.description).toMatch(/url/i);
		expect(result.error?.httpCode).toBe('422');
	});

	test('Create with the list shape of 422 errors', async () => {
		sb.get().control.reset({ errorsShape: 'list' });
		const result = await run(sb.env(), createParams({ url: 'https://localhost/x' }));
		expect(result.error?.message).toBe('The API rejected the request: invalid url (item 0)');
	});

	test('Create with no event fails locally', async () => {
		const result = await run(sb.env(), createParams({ events: '={{ [] }}' }));
		expect(result.error?.message).toBe('Item 0: the field "Events" is empty');
		expect(sb.get().control.requests()).toEqual([]);
	});

	test('Create is not retried after an internal error (not safe to repeat)', async () => {
		sb.get().control.addFault({ method: 'POST', path: '^/webhooks$', kind: 'status500' });
		const result = await run(sb.env(), createParams());
		expect(result.error?.message).toBe(
			'The Document Scanning service had an internal error (HTTP 500) (item 0)',
		);
		expect(sb.get().control.requests()).toHaveLength(1);
	});

	test('Get Many lists the webhooks; Delete removes one; Delete again is a 404', async () => {
		const first = jsonOf(await run(sb.env(), createParams({ name: 'one' })))[0];
		const second = jsonOf(
			await run(sb.env(), createParams({ name: 'two', url: 'https://hooks.example.com/two' })),
		)[0];

		const listed = await run(sb.env(), webhook('getAll'));
		expect(jsonOf(listed).map((w) => [w.id, w.name, w.url])).toEqual(
			expect.arrayContaining([
				[first.id, 'one', 'https://hooks.example.com/scans'],
				[second.id, 'two', 'https://hooks.example.com/two'],
			]),
		);
		expect(jsonOf(listed)).toHaveLength(2);
		expect(jsonOf(listed).every((w) => w.secret === undefined)).toBe(true);

		const deleted = await run(sb.env(), webhook('delete', { webhookId: String(first.id) }));
		expect(jsonOf(deleted)).toEqual([{ deleted: true, id: first.id }]);
		expect(sb.get().control.getWebhook(first.id as number)).toBeUndefined();

		const again = await run(sb.env(), webhook('delete', { webhookId: String(first.id) }));
		expect(again.error?.message).toMatch(/^Not found/);
		expect(again.error?.httpCode).toBe('404');
	});

	test('Get Many in the bare envelope', async () => {
		sb.get().control.reset({ envelope: 'bare' });
		await run(sb.env(), createParams());
		const listed = await run(sb.env(), webhook('getAll'));
		expect(jsonOf(listed)).toEqual([expect.objectContaining({ id: 1, name: 'ERP import' })]);
	});

	test('Get Logs outputs one item per delivery attempt', async () => {
		const receiver = http.createServer((req, res) => {
			req.resume();
			req.on('end', () => {
				res.statusCode = req.url === '/fail' ? 500 : 200;
				res.end('{}');
			});
		});
		await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = receiver.address() as AddressInfo;
			sb.get().control.setOptions({ allowInsecureWebhookUrls: true });
			const hook = jsonOf(
				await run(sb.env(), createParams({ url: `http://127.0.0.1:${port}/ok` })),
			)[0];
			await sb.get().control.deliver(hook.id as number, 'scan.completed');
			await sb.get().control.deliver(hook.id as number, 'scan.failed');

			const result = await run(sb.env(), webhook('getLogs', { webhookId: String(hook.id) }));
			expect(result.error).toBeUndefined();
			const logs = jsonOf(result);
			expect(logs.map((l) => [l.webhook_id, l.event, l.success, l.status_code])).toEqual([
				[hook.id, 'scan.failed', true, 200],
				[hook.id, 'scan.completed', true, 200],
			]);
			expect(pairedOf(result)).toEqual([0, 0]);
		} finally {
			receiver.closeAllConnections();
			await new Promise<void>((resolve) => receiver.close(() => resolve()));
		}
	});

	test('Get Logs of an unknown webhook: 404; an invalid ID fails locally', async () => {
		const missing = await run(sb.env(), webhook('getLogs', { webhookId: '42' }));
		expect(missing.error?.httpCode).toBe('404');
		sb.get().control.clearRequests();
		const invalid = await run(sb.env(), webhook('getLogs', { webhookId: 'abc' }));
		expect(invalid.error?.message).toBe(
			'Item 0: the field "Webhook ID" must be a positive whole number, got "abc"',
		);
		expect(sb.get().control.requests()).toEqual([]);
	});
});

describe('Template list search (resource locator "From List")', () => {
	test('lists the active templates by name with their mode, sorted', async () => {
		const result = await callListSearch(sb.env(), 'searchTemplates');
		expect(result).toEqual({
			results: [
				{ name: 'Delivery note (tabular)', value: '2' },
				{ name: 'Invoice (scalar)', value: '1' },
				{ name: 'Invoice with line items (mixed)', value: '3' },
				{ name: 'Receipt photo (vision)', value: '4' },
			],
		});
	});

	test('filters by the search text, and works with the X-API-Key header', async () => {
		const result = await callListSearch(
			sb.env({ authHeader: 'xApiKey' }),
			'searchTemplates',
			'INVOICE',
		);
		expect(result).toEqual({
			results: [
				{ name: 'Invoice (scalar)', value: '1' },
				{ name: 'Invoice with line items (mixed)', value: '3' },
			],
		});
		expect(
			sb
				.get()
				.control.requests()
				.map((r) => `${r.method} ${r.path} ${r.authScheme}`),
		).toEqual(['GET /templates x-api-key']);
	});

	test('an auth error reaches the editor as an error', async () => {
		await expect(callListSearch(sb.env({ apiKey: 'bad' }), 'searchTemplates')).rejects.toThrow(
			/Authentication failed/,
		);
	});
});
