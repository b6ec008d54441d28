/**
 * #40: tool answers a model can afford, with no secret or address by any name, and errors that
 * never carry the service's page. Each case of the issue through n8n-core's tool paths (MCP and
 * AI Agent), against the sandbox, or a stand-in service for shapes the spec leaves open (secrets
 * under other names, URLs with user or query anywhere, logs listed oldest first).
 * `npx jest test/node/tool-bounds.test.ts -t figures` prints the sizes before and after.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ANSWER_BOUND } from '../../nodes/DocumentScanning/execution/tool';
import { DEFAULT_API_KEY } from '../../sandbox/server';
import { api } from '../support/sandbox-api';
import { callTool, type ToolCallResult, type ToolPath } from '../support/tool-call';
import { run, useSandbox } from './helpers';

const sb = useSandbox();
const PATHS: ToolPath[] = ['mcp', 'agent'];
const SCAN_ID = "={{ $fromAI('scanId', 'The numeric ID of the scan', 'number') }}";
const GET = { resource: 'scan', operation: 'get', scanId: SCAN_ID };
const MANY = { resource: 'scan', operation: 'getAll', limit: 50 };
const UNBOUNDED = { answerBound: 1e9 }; // the answer as before the bound
const rows = (n: number) =>
	Array.from({ length: n }, (_, i) => ({ position: i + 1, sku: `A-${i}` }));
const CONTRACT = { contract_number: 'C-7', page_text: 'Lorem ipsum dolor sit amet. '.repeat(7143) };

/** What the model or MCP client got: the failure's text, if the call failed. */
function failure(result: ToolCallResult, path: ToolPath): string | undefined {
	if (path === 'mcp') return result.isError ? result.text : undefined;
	const [item] = (result.json ?? []) as IDataObject[];
	return typeof item?.error === 'string' ? `${item.error} ${String(item.description)}` : undefined;
}

describe('§1 every answer has a size a model can take', () => {
	const seed = (extracted: IDataObject, count = 1) =>
		sb.get().control.seedScans({ count, template_id: 3, extracted_data: extracted });

	test.each(PATHS)(
		'%s: a 200 kB text field is cut, saying how much; a table in an object is cut and counted',
		async (path) => {
			const [text] = seed(CONTRACT);
			const [nested] = seed({ summary: { total: 5, rows: rows(10_000) } });
			const get = async (id: number) =>
				await callTool({ path, parameters: GET, args: { scanId: id }, env: sb.env() });
			const cut = await get(text);
			expect(cut.text.length).toBeLessThanOrEqual(ANSWER_BOUND);
			const [scan] = cut.json as IDataObject[];
			expect(scan).toEqual(expect.objectContaining({ scan_id: text, contract_number: 'C-7' }));
			expect(scan.page_text).toMatch(/^Lorem ipsum.*… \(\d+ more characters not shown\)$/s);
			const table = await get(nested);
			const [tabled] = table.json as IDataObject[];
			expect(tabled.summary).toEqual({ total: 5, rows: rows(10) });
			expect(tabled.not_shown).toEqual({ 'summary.rows': 9_990 });
		},
	);

	test.each(PATHS)(
		'%s: Get Many of 50 large scans stays within the bound and counts what it left out',
		async (path) => {
			seed(CONTRACT, 50);
			const many = await callTool({ path, parameters: MANY, args: {}, env: sb.env() });
			expect(many.text.length).toBeLessThanOrEqual(ANSWER_BOUND);
			const answers = many.json as IDataObject[];
			expect(answers).toHaveLength(50); // each scan, its text cut (saying how much)
			for (const scan of answers)
				expect(scan.page_text).toMatch(/… \(\d+ more characters not shown\)$/);
			const few = await callTool({
				path,
				parameters: { ...MANY, answerBound: 2_000 },
				args: {},
				env: sb.env(),
			});
			expect(few.text.length).toBeLessThanOrEqual(2_000);
			const shown = (few.json as IDataObject[]).slice(0, -1);
			expect(shown.length).toBeGreaterThan(0);
			expect((few.json as IDataObject[]).at(-1)).toEqual({
				not_shown: { results: 50 - shown.length },
			});
		},
	);

	test('a builder can choose a larger bound', async () => {
		const [id] = seed(CONTRACT);
		const parameters = { ...GET, answerBound: 300_000 };
		const whole = await callTool({ path: 'mcp', parameters, args: { scanId: id }, env: sb.env() });
		expect((whole.json as IDataObject[])[0].page_text).toBe(CONTRACT.page_text);
	});

	test('figures: the three cases of the issue, before and after', async () => {
		const [text] = seed(CONTRACT, 50);
		const [nested] = seed({ summary: { rows: rows(10_000) } });
		const size = async (parameters: INodeParameters, args: IDataObject) =>
			(await callTool({ path: 'mcp', parameters, args, env: sb.env() })).text.length;
		const cases: Array<[string, INodeParameters, IDataObject]> = [
			['Scan → Get, one 200 kB text field', GET, { scanId: text }],
			['Scan → Get, a 10,000-row table inside an object', GET, { scanId: nested }],
			['Scan → Get Many, 50 scans with a 200 kB text field', MANY, {}],
		];
		const lines = [];
		for (const [what, parameters, args] of cases) {
			const before = await size({ ...parameters, ...UNBOUNDED }, args);
			const after = await size(parameters, args);
			expect(after).toBeLessThanOrEqual(ANSWER_BOUND);
			lines.push(`${what}: ${before.toLocaleString('en-US')} → ${after.toLocaleString('en-US')}`);
		}
		// docs/reference.md quotes these, with the same cases run on the code before the bound
		console.log(
			`characters of the tool answer, the bound out of the way → with it:\n${lines.join('\n')}`,
		);
	});
});

/** A stand-in service: the sandbox's API with the answers `routes` gives instead. */
async function standIn(
	routes: Record<string, unknown>,
): Promise<{ baseUrl: string; close: () => Promise<void> }> {
	const server = http.createServer((req, res) => {
		const path = (req.url ?? '').replace(/^\/api\/v1/, '').replace(/\?.*$/, '');
		const body = routes[path];
		res.writeHead(body === undefined ? 404 : 200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify(body ?? { error: 'not_found', message: 'Not found.' }));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://localhost:${port}/api/v1`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

describe('§2 no secret or address by any name', () => {
	const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
	const hooks = (host: string) => [
		{
			id: 1,
			name: 'ERP',
			url: 'https://erp-user:erp-pass@hooks.example.com/in?seal=s3al',
			signing_key: SECRET,
			signing: { secret: 'nested-s3cret', version: 2 },
			request: { url: `http://${host}/api/v1/webhooks?api_key=${DEFAULT_API_KEY}` },
		},
	];
	const logs = Array.from({ length: 25 }, (_, i) => ({
		id: i + 1,
		created_at: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
		success: i !== 24,
		status_code: i === 24 ? 500 : 200,
		headers: { 'X-Signing-Key': SECRET }, // the secret as this answer gives it
		error:
			i === 24 ? `POST https://hooks.example.com/in?seal=s3al failed, signed with ${SECRET}` : null,
	}));

	test.each(PATHS)(
		'%s: secrets under any name and depth, their values, the key, the host, URL users and queries never reach the model',
		async (path) => {
			const routes: Record<string, unknown> = { '/webhooks/1/logs': logs };
			const stand = await standIn(routes);
			routes['/webhooks'] = hooks(new URL(stand.baseUrl).host);
			try {
				const env = { baseUrl: stand.baseUrl, apiKey: DEFAULT_API_KEY };
				const list = await callTool({
					path,
					parameters: { resource: 'webhook', operation: 'getAll' },
					args: {},
					env,
				});
				const read = await callTool({
					path,
					parameters: { resource: 'webhook', operation: 'getLogs', webhookId: '1' },
					args: {},
					env,
				});
				const [hook] = list.json as IDataObject[];
				expect(hook).toEqual(
					expect.objectContaining({
						url: 'https://hooks.example.com/in',
						signing_key: '[withheld]',
						signing: { secret: '[withheld]', version: '[withheld]' },
						request: { url: 'http://[withheld]/api/v1/webhooks' },
					}),
				);
				const [answer] = read.json as IDataObject[];
				// §3: the newest attempts, although the service lists the oldest first
				expect((answer.logs as IDataObject[])[0]).toEqual(
					expect.objectContaining({
						id: 25,
						error: 'POST https://hooks.example.com/in failed, signed with [withheld]',
					}),
				);
				for (const text of [list.text, read.text])
					expect(text).not.toMatch(
						new RegExp(
							`${SECRET}|nested-s3cret|s3al|erp-pass|erp-user|localhost|${DEFAULT_API_KEY}`,
						),
					);
			} finally {
				await stand.close();
			}
		},
	);

	test.each(PATHS)(
		"%s: a proxy's HTML page is an error worded without its body or host",
		async (path) => {
			sb.get().control.addFault({ kind: 'status', status: 400, page: true, path: '^/account$' });
			const result = await callTool({
				path,
				parameters: { resource: 'account', operation: 'get' },
				args: {},
				env: sb.env(),
			});
			expect(failure(result, path)).toMatch(
				/answered HTTP 400 with a page that is not the API’s JSON/,
			);
			expect(result.text).not.toMatch(/nginx|<html|127\.0\.0\.1/);
		},
	);

	test.each(PATHS)(
		'%s: a web app answering 200 HTML (a Base URL without /api/v1) is an error, not a message',
		async (path) => {
			sb.get().control.addFault({ kind: 'status', status: 200, page: true, path: '^/account$' });
			const result = await callTool({
				path,
				parameters: { resource: 'account', operation: 'get' },
				args: {},
				env: sb.env(),
			});
			expect(failure(result, path)).toMatch(
				/answered HTTP 200 with a page that is not the API’s JSON.*version prefix/s,
			);
			expect(result.isError).toBe(path === 'mcp');
			expect(result.text).not.toMatch(/nginx|<html|127\.0\.0\.1/);
		},
	);

	test('the plain node fails on a 200 HTML answer too, without its page', async () => {
		sb.get().control.addFault({ kind: 'status', status: 200, page: true, path: '^/account$' });
		const result = await run(sb.env(), { resource: 'account', operation: 'get' });
		expect(result.error?.message).toMatch(
			/answered HTTP 200 with a page that is not the API’s JSON/,
		);
		expect(result.output).toEqual([]);
	});
});

describe('§3 answers that mean what they say', () => {
	test.each(PATHS)(
		'%s: an extracted status or error_message never takes the answer’s own field, nor is dropped',
		async (path) => {
			const [id] = sb.get().control.seedScans({
				count: 1,
				template_id: 3,
				extracted_data: { invoice_number: 'INV-9', status: 'paid', error_message: 'none' },
			});
			const result = await callTool({ path, parameters: GET, args: { scanId: id }, env: sb.env() });
			const [scan] = result.json as IDataObject[];
			expect(scan).toEqual(
				expect.objectContaining({
					status: 'completed',
					invoice_number: 'INV-9',
					extracted_fields: { status: 'paid', error_message: 'none' },
				}),
			);
			expect(scan).not.toHaveProperty('error_message');
		},
	);

	test.each(PATHS)(
		'%s: Delete refuses a trigger’s webhook whatever its case, spaces or URL',
		async (path) => {
			sb.get().control.setOptions({ allowInsecureWebhookUrls: true });
			const names = [
				'N8N: Orders / Trigger',
				'\u00a0n8n: Orders',
				'\u200bn8n:\u00a0Orders',
				'Ｎ８Ｎ： Orders',
			];
			const urls = [
				'https://n8n.example.com/webhook/abc',
				'https://n8n.example.com/x/webhook-test/abc',
			];
			const made = [
				...names.map((name) => ({ name, url: 'https://hooks.example.com/in' })),
				...urls.map((url) => ({ name: 'Mine', url })),
			];
			for (const hook of made) {
				const created = await api(sb.get(), 'POST', '/webhooks', {
					json: { ...hook, events: ['scan.completed'] },
				});
				const id = (created.body.data as IDataObject).id;
				const result = await callTool({
					path,
					parameters: {
						resource: 'webhook',
						operation: 'delete',
						webhookId: String(id),
						allowChanges: true,
					},
					args: {},
					env: sb.env(),
				});
				expect(failure(result, path)).toMatch(
					/deleting it would stop that trigger.*Nothing was deleted/s,
				);
			}
			const left = (await api(sb.get(), 'GET', '/webhooks')).body.data as IDataObject[];
			expect(left).toHaveLength(made.length);
		},
	);
});
