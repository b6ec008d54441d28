// n8n's MCP Server Trigger exposing the Document Scanning node's tools to a real MCP client, the
// official SDK (@modelcontextprotocol/sdk, a dev dependency), on every n8n line (issues 27, 34).
//
// For each transport the trigger speaks (streamable HTTP and SSE, both at the trigger's URL from
// trigger version 2 on) the client lists the tools (strict schemas with the parameters their $fromAI
// calls name), calls them against the sandbox and checks, with the functions of tool-checks.mjs:
//   - answers are compact lists and scans with data, and each description promises only fields the
//     answers have (§1, §2);
//   - a failed call is `isError` with our wording and what to do, without an internal address: an
//     unknown scan, a Limit above 50, an upload, the deletion of a trigger's webhook (§5, §1, §4, §3);
//   - no signing secret and no URL query reaches the client (§3);
//   - issue 40: an oversized scan (a 200 kB text, a 10,000-row table in an object) comes back
//     within the answer's bound, saying what it left out; a non-JSON answer (a web app's 200 HTML
//     page) is `isError`, worded without the page.
// Queue mode runs the same checks against the webhook process (queue/mcp.mjs).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sandboxOf, sleep, unwrap } from './support.mjs';
import { createActive, toolName, toolNode, TOOL_SCHEMAS, TOOLS } from './agent-workflows.mjs';
import {
	boundProblems,
	failureProblems,
	listProblems,
	schemaProblems,
	secretProblems,
	unkeptPromises,
	OVERSIZED_SCAN,
	PAGE_FAULT,
} from './tool-checks.mjs';

const MCP_TOOLS = [
	'Account balance',
	'Read scan',
	'List scans',
	'Upload document',
	'Create webhook if allowed',
	'Delete webhook',
	'Webhooks',
];
export const MCP_PATH = 'document-scanning-e2e';
const TRIGGER_HOOK = 'n8n: e2e MCP / Document Scanning Trigger';

/** MCP Server Trigger (path MCP_PATH) with the Document Scanning tools of MCP_TOOLS. */
export function mcpWorkflow(ctx, name = 'e2e: MCP server with Document Scanning tools') {
	return {
		name,
		active: false,
		nodes: [
			{
				id: 'mcp',
				name: 'MCP Server Trigger',
				type: '@n8n/n8n-nodes-langchain.mcpTrigger',
				typeVersion: ctx.line.major >= 2 ? 2.1 : 2,
				position: [0, 0],
				webhookId: 'e2e0a9e7-0000-4000-8000-0000000acb01',
				parameters: { path: MCP_PATH },
			},
			...MCP_TOOLS.map((tool, i) => toolNode(ctx, tool, TOOLS[tool], [160 * i, 220])),
		],
		connections: Object.fromEntries(
			MCP_TOOLS.map((tool) => [
				tool,
				{ ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] },
			]),
		),
		settings: { executionOrder: 'v1' },
	};
}

const TRANSPORTS = {
	'streamable HTTP': (url) => new StreamableHTTPClientTransport(url),
	SSE: (url) => new SSEClientTransport(url),
};

/** @param {import('./support.mjs').E2eContext} ctx */
export async function checkMcp(ctx) {
	await createActive(ctx, mcpWorkflow(ctx));
	await checkMcpClient(ctx, new URL(`mcp/${MCP_PATH}`, ctx.n8nUrl), '');
}

/**
 * The MCP client's checks against a trigger at `url` (`label` names the setup in the check lines,
 * e.g. " (queue mode)"). The trigger's workflow is active already.
 * @param {Pick<import('./support.mjs').E2eContext, 'check' | 'sandboxBaseUrl' | 'apiKey'>} ctx
 * @param {URL} url
 * @param {string} label
 */
export async function checkMcpClient(ctx, url, label) {
	const sandbox = sandboxOf(ctx);
	const [scanId] = await sandbox.seedScans({ count: 3, template_id: 3 });
	const [failed] = await sandbox.seedScans({ count: 1, status: 'failed' });
	const [invalid] = await sandbox.seedScans({ count: 1, status: 'validation_failed' });
	const rows = Array.from({ length: 12 }, (_, i) => ({
		position: i + 1,
		description: `Article ${i + 1}`,
	}));
	const [long] = await sandbox.seedScans({
		count: 1,
		template_id: 3,
		extracted_data: { invoice_number: 'INV-12', line_items: rows },
	});
	const [oversized] = await sandbox.seedScans(OVERSIZED_SCAN);
	const internal = [new URL(ctx.sandboxBaseUrl).host];
	for (const [transport, make] of Object.entries(TRANSPORTS)) {
		const client = await connect(url, make);
		const name = (what) => `MCP${label}, ${transport}: ${what}`;
		if (
			!ctx.check(
				name('the SDK client connects to the MCP Server Trigger'),
				client.ok,
				client.detail,
			)
		)
			continue;
		try {
			const { tools } = await client.client.listTools();
			const offered = (tool) => tools.find((t) => t.name === toolName(tool));
			const schemas = MCP_TOOLS.flatMap((tool) =>
				offered(tool)
					? schemaProblems(
							{ name: tool, parameters: offered(tool).inputSchema },
							TOOL_SCHEMAS[tool],
						)
					: [`${tool} not listed`],
			);
			ctx.check(
				name(
					'lists the tools with strict input schemas naming the parameters of their $fromAI calls',
				),
				tools.length === MCP_TOOLS.length && schemas.length === 0,
				schemas.join('; ') ||
					tools
						.map((t) => `${t.name}(${Object.keys(t.inputSchema?.properties ?? {}).join(', ')})`)
						.join(' '),
			);

			await sandbox.clearRequests();
			const call = async (tool, args) =>
				await client.client.callTool({ name: toolName(tool), arguments: args });
			const text = (result) => (result?.content ?? []).map((c) => c.text ?? '').join('');
			const read = await call('Read scan', { scanId });
			const list = await call('List scans', { limit: 3, status: 'completed', templateId: '' });
			const balance = await call('Account balance', {});
			const others = await Promise.all(
				[failed, invalid, long].map(async (id) => await call('Read scan', { scanId: id })),
			);
			const everything = await call('List scans', { limit: 6, status: '', templateId: '' });
			const scan = parse(text(read))?.[0];
			const listed = listProblems(parse(text(list)), {
				atLeast: 3,
				each: (s) =>
					s.status === 'completed' && !('line_items' in s)
						? undefined
						: `${s.status}, line_items ${'line_items' in s}`,
			});
			const requests = await sandbox.requests();
			ctx.check(
				name(
					'calls read the sandbox with the credential: a compact scan (10 line items at most) and a list of scans without tables',
				),
				!read.isError &&
					scan?.scan_id === scanId &&
					typeof scan?.invoice_number === 'string' &&
					(scan?.line_items?.length ?? 0) <= 10 &&
					listed.length === 0 &&
					requests.some(
						(r) => r.path === `/scans/${scanId}` && r.status === 200 && r.authScheme === 'bearer',
					),
				listed.join('; ') ||
					`${text(read).slice(0, 160)}; sandbox: ${requests.map((r) => `${r.method} ${r.path} ${r.status}`).join(', ')}`,
			);

			/** @type {Array<[string, any, RegExp]>} */
			const failures = [
				[
					'an unknown scan',
					await call('Read scan', { scanId: 424242 }),
					/Not found: Scan 424242 not found\..*Check the ID/s,
				],
				[
					'a Limit above 50',
					await call('List scans', { limit: 51, status: '', templateId: '' }),
					/must be at most 50 for an AI model/,
				],
				[
					'an upload',
					await call('Upload document', { templateId: 1 }),
					/cannot run as an AI tool.*never a file/s,
				],
			];
			for (const [what, result, wording] of failures) {
				const problems = failureProblems(result, wording, internal);
				ctx.check(
					name(`${what} is isError with our wording and what to do, no internal address`),
					problems.length === 0,
					problems.join('; ') || text(result).slice(0, 200),
				);
			}

			const big = await call('Read scan', { scanId: oversized });
			const bound = boundProblems(text(big));
			ctx.check(
				name('an oversized scan comes back within the answer’s bound, saying what it left out'),
				!big.isError && bound.length === 0 && parse(text(big))?.[0]?.scan_id === oversized,
				bound.join('; ') || `${text(big).length} characters: ${text(big).slice(0, 160)}`,
			);
			await sandbox.control('POST', '/faults', PAGE_FAULT);
			const page = await call('Account balance', {}).finally(
				async () => await sandbox.control('DELETE', '/faults'),
			);
			const paged = failureProblems(page, /page that is not the API’s JSON.*version prefix/s, [
				...internal,
				'nginx',
				'<html',
			]);
			ctx.check(
				name('a non-JSON answer (a web app’s 200 HTML page) is isError, worded without the page'),
				paged.length === 0,
				paged.join('; ') || text(page).slice(0, 200),
			);

			const hooks = async () => unwrap((await sandbox.api('/webhooks')).body) ?? [];
			const trigger = unwrap(
				(
					await sandbox.api('/webhooks', {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({
							name: TRIGGER_HOOK,
							url: 'https://n8n.example/webhook/mcp?seal=mcp-sealed',
							events: ['scan.completed'],
						}),
					})
				).body,
			);
			const made = await call('Create webhook if allowed', {
				name: `By an MCP client (${transport})`,
				url: 'https://hooks.example.com/mcp?token=q',
			});
			const listedHooks = await call('Webhooks', {});
			const refused = await call('Delete webhook', { webhookId: trigger.id });
			const secrets = secretProblems(text(made) + text(listedHooks), ['mcp-sealed']);
			const refusal = failureProblems(
				refused,
				/belongs to a Document Scanning Trigger.*Nothing was deleted/s,
				internal,
			);
			const left = await hooks();
			ctx.check(
				name(
					'no signing secret or URL query reaches the client; a Document Scanning Trigger’s webhook is not deleted',
				),
				!made.isError &&
					parse(text(made))?.[0]?.secret === '[withheld]' &&
					secrets.length === 0 &&
					refusal.length === 0 &&
					left.some((h) => h.id === trigger.id),
				[...secrets, ...refusal].join('; ') ||
					`${text(made).slice(0, 120)}; ${text(refused).slice(0, 120)}`,
			);
			for (const hook of left) await sandbox.api(`/webhooks/${hook.id}`, { method: 'DELETE' });

			const answers = new Map([
				['Read scan', [read, ...others, big].map((r) => parse(text(r)))],
				['List scans', [parse(text(list)), parse(text(everything))]],
				['Account balance', [parse(text(balance))]],
				['Webhooks', [parse(text(listedHooks))]],
				['Create webhook if allowed', [parse(text(made))]],
			]);
			const unkept = [...answers].flatMap(([tool, list]) =>
				unkeptPromises(offered(tool)?.description ?? '', list).map((p) => `${tool} ${p}`),
			);
			ctx.check(
				name('each description promises only fields its answers have'),
				unkept.length === 0,
				unkept.join('; ') || [...answers.keys()].join(', '),
			);
		} finally {
			await client.client.close().catch(() => undefined);
		}
	}
}

/** Connects an SDK client; n8n 2.x registers the trigger's webhook after activation answers. */
async function connect(url, make) {
	const deadline = Date.now() + 30_000;
	let last;
	while (Date.now() < deadline) {
		const client = new Client({ name: 'document-scanning-e2e', version: '1.0.0' });
		try {
			await client.connect(make(url));
			return { ok: true, client, detail: url.href };
		} catch (err) {
			last = err;
			await client.close().catch(() => undefined);
			await sleep(500);
		}
	}
	return { ok: false, client: undefined, detail: `${url.href}: ${last?.message ?? last}` };
}

function parse(text) {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}
