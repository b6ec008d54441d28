/**
 * Review of #40, the probes that held: pages on 2xx/4xx/5xx in tool mode and in the plain node,
 * the delete guard with lookalike names and an n8n trigger's URL, Get Logs with missing
 * created_at, the host URL-encoded, deep nesting. Every test passes on main at review time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY } from '../../sandbox/server';
import { api } from '../support/sandbox-api';
import { callTool, type ToolCallResult, type ToolPath } from '../support/tool-call';
import { run, useSandbox } from './helpers';

const sb = useSandbox();
const PATHS: ToolPath[] = ['mcp', 'agent'];
const ACCOUNT = { resource: 'account', operation: 'get' };

function failure(result: ToolCallResult, path: ToolPath): string | undefined {
	if (path === 'mcp') return result.isError ? result.text : undefined;
	const [item] = (result.json ?? []) as IDataObject[];
	return typeof item?.error === 'string' ? `${item.error} ${String(item.description)}` : undefined;
}

async function standIn(handler: (path: string, res: http.ServerResponse, port: number) => void) {
	let port = 0;
	const server = http.createServer((req, res) =>
		handler((req.url ?? '').replace(/^\/api\/v1/, '').replace(/\?.*$/, ''), res, port),
	);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	port = (server.address() as AddressInfo).port;
	return {
		baseUrl: `http://localhost:${port}/api/v1`,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

describe('pages instead of JSON', () => {
	const cases: Array<[number, number]> = [
		[200, 1],
		[400, 1],
		[403, 1],
		[404, 1],
		[502, 4],
	];
	for (const path of PATHS)
		test.each(cases)(
			`${path}: HTTP %i page is an error, without the page or the host`,
			async (status, times) => {
				sb.get().control.addFault({
					kind: 'status',
					status,
					page: true,
					path: '^/account$',
					times,
				});
				const result = await callTool({ path, parameters: ACCOUNT, args: {}, env: sb.env() });
				const text = failure(result, path);
				expect(text).toBeDefined();
				expect(result.text).not.toMatch(/<html|<body|127\.0\.0\.1|localhost/i);
			},
		);

	test.each(PATHS)('%s: a 200 text/plain "OK" is an error', async (path) => {
		const stand = await standIn((_, res) => {
			res.writeHead(200, { 'Content-Type': 'text/plain' });
			res.end('OK');
		});
		try {
			const result = await callTool({
				path,
				parameters: ACCOUNT,
				args: {},
				env: { baseUrl: stand.baseUrl, apiKey: DEFAULT_API_KEY },
			});
			expect(failure(result, path)).toBeDefined();
		} finally {
			await stand.close();
		}
	});

	test('plain node: a 200 page on Webhook → Get Many is an error, not an empty list', async () => {
		sb.get().control.addFault({ kind: 'status', status: 200, page: true, path: '^/webhooks$' });
		const out = await run(sb.env(), { resource: 'webhook', operation: 'getAll', returnAll: true });
		expect(out.error?.message).toMatch(/page that is not the API/);
	});
});

describe('delete guard', () => {
	const names = [
		'N8N: Orders / T',
		'\u200bn8n: Orders / T',
		' n8n : Orders / T',
		'Ｎ８Ｎ：Orders / T',
		'\u00a0n8n:\u00a0x',
	];
	test.each(PATHS)('%s: lookalike names and an n8n /webhook/ URL are refused', async (path) => {
		const ids: number[] = [];
		for (const name of names) {
			const made = await api(sb.get(), 'POST', '/webhooks', {
				json: { name, url: 'https://hooks.example.com/x', events: ['scan.completed'] },
			});
			ids.push(Number((made.body.data as IDataObject).id));
		}
		const byUrl = await api(sb.get(), 'POST', '/webhooks', {
			json: {
				name: 'ERP',
				url: 'https://n8n.example.com/webhook/4f1c/scans',
				events: ['scan.completed'],
			},
		});
		ids.push(Number((byUrl.body.data as IDataObject).id));
		for (const id of ids) {
			const result = await callTool({
				path,
				parameters: {
					resource: 'webhook',
					operation: 'delete',
					allowChanges: true,
					webhookId: "={{ $fromAI('webhookId', 'id', 'number') }}",
				},
				args: { webhookId: id },
				env: sb.env(),
			});
			expect(failure(result, path)).toMatch(/belongs to a Document Scanning Trigger/);
		}
		const left = (await api(sb.get(), 'GET', '/webhooks')).body.data as IDataObject[];
		expect(left).toHaveLength(ids.length);
	});
});

describe('Get Logs and redaction', () => {
	test.each(PATHS)(
		'%s: missing created_at goes last; the host URL-encoded in a text is withheld',
		async (path) => {
			const stand = await standIn((p, res, port) => {
				res.writeHead(200, { 'Content-Type': 'application/json' });
				res.end(
					JSON.stringify([
						{ id: 1 },
						{ id: 2, created_at: '2025-01-01T01:00:00+01:00' },
						{
							id: 3,
							created_at: '2025-01-01T00:30:00Z',
							error: `upstream http%3A%2F%2Flocalhost%3A${port}%2Fapi`,
						},
					]),
				);
			});
			try {
				const read = await callTool({
					path,
					parameters: { resource: 'webhook', operation: 'getLogs', webhookId: '1' },
					args: {},
					env: { baseUrl: stand.baseUrl, apiKey: DEFAULT_API_KEY },
				});
				const [answer] = read.json as IDataObject[];
				expect((answer.logs as IDataObject[]).map((l) => l.id)).toEqual([3, 2, 1]);
				expect(read.text).not.toMatch(/localhost/);
			} finally {
				await stand.close();
			}
		},
	);
});

describe('a short API key', () => {
	test.each(PATHS)(
		'%s: an API key shorter than 4 characters, echoed in an error, never reaches the model',
		async (path) => {
			const stand = await standIn((_, res) => {
				res.writeHead(401, { 'Content-Type': 'application/json' });
				res.end(JSON.stringify({ error: 'unauthorized', message: 'Invalid API key "k9x"' }));
			});
			try {
				const result = await callTool({
					path,
					parameters: { resource: 'account', operation: 'get' },
					args: {},
					env: { baseUrl: stand.baseUrl, apiKey: 'k9x' },
				});
				expect(failure(result, path)).toBeDefined();
				expect(result.text).not.toMatch(/k9x/);
			} finally {
				await stand.close();
			}
		},
	);
});

describe('deep nesting', () => {
	test.each(PATHS)(
		'%s: a 300-level nested extracted field answers within the bound',
		async (path) => {
			let deep: IDataObject = { leaf: 'x'.repeat(50_000) };
			for (let i = 0; i < 300; i++) deep = { child: deep, list: [1, 2, 3] };
			const [id] = sb
				.get()
				.control.seedScans({ count: 1, template_id: 3, extracted_data: { deep } });
			const result = await callTool({
				path,
				parameters: {
					resource: 'scan',
					operation: 'get',
					scanId: "={{ $fromAI('scanId', 'id', 'number') }}",
				},
				args: { scanId: id },
				env: sb.env(),
			});
			expect(result.text.length).toBeLessThanOrEqual(20_000);
			expect(result.text).toMatch(new RegExp(`"scan_id":${id}`));
		},
	);
});
