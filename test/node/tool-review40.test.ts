/**
 * Review of #40 from outside: a model-driven agent against a real, imperfect service. Each test
 * states what the issue or the tool description promises; a failing test is a finding.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY } from '../../sandbox/server';
import { callTool, type ToolCallResult, type ToolPath } from '../support/tool-call';
import { jsonOf, run, useSandbox } from './helpers';

const sb = useSandbox();
const PATHS: ToolPath[] = ['mcp', 'agent'];
const SCAN_ID = "={{ $fromAI('scanId', 'The numeric ID of the scan', 'number') }}";
const GET = { resource: 'scan', operation: 'get', scanId: SCAN_ID };

function failure(result: ToolCallResult, path: ToolPath): string | undefined {
	if (path === 'mcp') return result.isError ? result.text : undefined;
	const [item] = (result.json ?? []) as IDataObject[];
	return typeof item?.error === 'string' ? `${item.error} ${String(item.description)}` : undefined;
}

type Route = { status?: number; type?: string; body: string };

/** A stand-in service answering `routes[path]` (raw status, content type and body). */
async function standIn(routes: Record<string, Route | unknown>) {
	const server = http.createServer((req, res) => {
		const path = (req.url ?? '').replace(/^\/api\/v1/, '').replace(/\?.*$/, '');
		const route = routes[path] as Route | undefined;
		const raw =
			route && typeof route === 'object' && 'body' in route && typeof route.body === 'string';
		if (raw) {
			res.writeHead(route.status ?? 200, { 'Content-Type': route.type ?? 'application/json' });
			res.end(route.body);
			return;
		}
		res.writeHead(route === undefined ? 404 : 200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify(route ?? { error: 'not_found', message: 'Not found.' }));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://localhost:${port}/api/v1`,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

const WHSEC = 'whsec_0123456789abcdef0123456789abcdef';

describe('secrets under other names', () => {
	test.each(PATHS)(
		'%s: a webhook signing secret under hmac_key / signature.key / webhook_key never reaches the model',
		async (path) => {
			const stand = await standIn({
				'/webhooks': [
					{ id: 1, name: 'A', url: 'https://a.example/h', hmac_key: `${WHSEC}1` },
					{ id: 2, name: 'B', url: 'https://b.example/h', signature: { key: `${WHSEC}2` } },
					{ id: 3, name: 'C', url: 'https://c.example/h', webhook_key: `${WHSEC}3` },
				],
			});
			try {
				const list = await callTool({
					path,
					parameters: { resource: 'webhook', operation: 'getAll' },
					args: {},
					env: { baseUrl: stand.baseUrl, apiKey: DEFAULT_API_KEY },
				});
				expect(list.text).toMatch(/a\.example/); // the answer came
				expect(list.text).not.toMatch(/whsec_/);
			} finally {
				await stand.close();
			}
		},
	);

	test.each(PATHS)(
		'%s: a short host name (this machine\'s "vm", as a compose service name would be) never reaches the model',
		async (path) => {
			const stand = await standIn({
				'/webhooks/1/logs': [
					{
						id: 1,
						created_at: '2025-01-01T00:00:00Z',
						success: false,
						error: 'connect ECONNREFUSED vm:443',
					},
				],
			});
			try {
				const read = await callTool({
					path,
					parameters: { resource: 'webhook', operation: 'getLogs', webhookId: '1' },
					args: {},
					env: { baseUrl: stand.baseUrl.replace('localhost', 'vm'), apiKey: DEFAULT_API_KEY },
				});
				expect(read.text).toMatch(/ECONNREFUSED/); // the answer came
				expect(read.text).not.toMatch(/\bvm\b/);
			} finally {
				await stand.close();
			}
		},
	);
});

describe('answers that are not JSON', () => {
	test.each(PATHS)('%s: an empty 200 body on Account → Get is an error, not {}', async (path) => {
		const stand = await standIn({ '/account': { status: 200, type: 'text/plain', body: '' } });
		try {
			const result = await callTool({
				path,
				parameters: { resource: 'account', operation: 'get' },
				args: {},
				env: { baseUrl: stand.baseUrl, apiKey: DEFAULT_API_KEY },
			});
			expect({ text: result.text, failed: failure(result, path) }).toEqual(
				expect.objectContaining({ failed: expect.any(String) }),
			);
		} finally {
			await stand.close();
		}
	});
});

describe('list envelopes the spec leaves open', () => {
	const hooks = { items: [{ id: 1, name: 'ERP', url: 'https://erp.example/h' }], warnings: [] };

	test.each(PATHS)(
		'%s: { items: [...], warnings: [] } is an error naming both lists, never an empty list',
		async (path) => {
			const stand = await standIn({ '/webhooks': hooks });
			try {
				const list = await callTool({
					path,
					parameters: { resource: 'webhook', operation: 'getAll' },
					args: {},
					env: { baseUrl: stand.baseUrl, apiKey: DEFAULT_API_KEY },
				});
				expect(list.text).toMatch(/several lists \(items, warnings\)/);
			} finally {
				await stand.close();
			}
		},
	);

	test('plain node: the same envelope is not read as "no webhooks" without a word', async () => {
		const stand = await standIn({ '/webhooks': hooks });
		try {
			const out = await run(
				{ baseUrl: stand.baseUrl, apiKey: DEFAULT_API_KEY },
				{ resource: 'webhook', operation: 'getAll', returnAll: true },
			);
			expect(out.error?.message ?? JSON.stringify(jsonOf(out))).toMatch(/ERP|envelope|list/i);
		} finally {
			await stand.close();
		}
	});
});

describe('Get Logs, newest first, with odd created_at', () => {
	test.each(PATHS)(
		'%s: epoch-second created_at listed oldest first: the newest (failed) attempt is shown first',
		async (path) => {
			const base = 1_735_689_600; // 2025-01-01T00:00:00Z
			const logs = Array.from({ length: 25 }, (_, i) => ({
				id: i + 1,
				created_at: base + i * 60,
				success: i !== 24,
			}));
			const stand = await standIn({ '/webhooks/1/logs': logs });
			try {
				const read = await callTool({
					path,
					parameters: { resource: 'webhook', operation: 'getLogs', webhookId: '1' },
					args: {},
					env: { baseUrl: stand.baseUrl, apiKey: DEFAULT_API_KEY },
				});
				const [answer] = read.json as IDataObject[];
				expect((answer.logs as IDataObject[])[0]).toEqual(expect.objectContaining({ id: 25 }));
			} finally {
				await stand.close();
			}
		},
	);
});

describe('the bound', () => {
	const seed = (extracted: IDataObject) =>
		sb.get().control.seedScans({ count: 1, template_id: 3, extracted_data: extracted })[0];

	test.each(PATHS)(
		'%s: a text of astral characters is cut on a character, never half of one',
		async (path) => {
			const id = seed({ note: `x${'😀'.repeat(15_000)}` });
			const result = await callTool({ path, parameters: GET, args: { scanId: id }, env: sb.env() });
			const [scan] = result.json as IDataObject[];
			expect(String(scan.note)).toMatch(/more characters not shown/);
			expect(String(scan.note)).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
		},
	);

	test.each(PATHS)(
		'%s: a keyed table (an object of 3,000 rows) still leaves the scan’s id and status',
		async (path) => {
			const table = Object.fromEntries(
				Array.from({ length: 3000 }, (_, i) => [`row_${i}`, { sku: `A-${i}`, qty: i }]),
			);
			const id = seed({ invoice_number: 'INV-1', line_items: table });
			const result = await callTool({ path, parameters: GET, args: { scanId: id }, env: sb.env() });
			expect(result.text.length).toBeLessThanOrEqual(20_000);
			const [scan] = result.json as IDataObject[];
			expect(scan).toEqual(expect.objectContaining({ scan_id: id, status: 'completed' }));
		},
	);

	test.each(PATHS)(
		'%s: an Answer Bound below the minimum (-1, as imported) still answers something',
		async (path) => {
			const id = seed({ invoice_number: 'INV-2' });
			const result = await callTool({
				path,
				parameters: { ...GET, answerBound: -1 },
				args: { scanId: id },
				env: sb.env(),
			});
			expect(result.text).toMatch(/INV-2/);
		},
	);
});
