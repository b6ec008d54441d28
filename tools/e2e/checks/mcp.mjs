// n8n's MCP Server Trigger exposing the Document Scanning node's tools to a real MCP client, the
// official SDK (@modelcontextprotocol/sdk, a dev dependency), on every n8n line (issue 27).
//
// For each transport the trigger speaks (streamable HTTP and SSE, both at the trigger's URL from
// trigger version 2 on): the client lists the tools, reads their descriptions and input schemas,
// calls one against the sandbox, and calls it with an unknown scan ID, which must come back as a
// readable error. Queue mode runs the same check against the webhook process (queue/checks.mjs).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sandboxOf, sleep } from './support.mjs';
import {
	createActive,
	shippedToolDescriptions,
	toolName,
	toolNode,
	TOOLS,
} from './agent-workflows.mjs';
import { strictSchemaProblems } from './agent.mjs';

const MCP_TOOLS = ['Account balance', 'Read scan', 'List scans'];
export const MCP_PATH = 'document-scanning-e2e';

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
	const [scanId] = await sandbox.seedScans({ count: 1 });
	const texts = shippedToolDescriptions();
	for (const [transport, make] of Object.entries(TRANSPORTS)) {
		const client = await connect(url, make);
		if (
			!ctx.check(
				`MCP${label}, ${transport}: the SDK client connects to the MCP Server Trigger`,
				client.ok,
				client.detail,
			)
		)
			continue;
		try {
			const { tools } = await client.client.listTools();
			const wrong = MCP_TOOLS.filter((name) => {
				const tool = tools.find((t) => t.name === toolName(name));
				return tool?.description !== texts[TOOLS[name].resource][TOOLS[name].operation];
			});
			const schemaProblems = tools.flatMap((t) =>
				strictSchemaProblems({ name: t.name, parameters: t.inputSchema }),
			);
			const readScan = tools.find((t) => t.name === toolName('Read scan'));
			ctx.check(
				`MCP${label}, ${transport}: lists the tools with the package’s descriptions and strict input schemas`,
				tools.length === MCP_TOOLS.length &&
					wrong.length === 0 &&
					schemaProblems.length === 0 &&
					/** @type {any} */ (readScan?.inputSchema)?.properties?.scanId?.type === 'number',
				`${tools.map((t) => t.name).join(', ')}${wrong.length ? `; wrong description: ${wrong.join(', ')}` : ''}${schemaProblems.length ? `; ${schemaProblems.join('; ')}` : ''}; Read_scan input ${JSON.stringify(readScan?.inputSchema?.properties)}`,
			);

			await sandbox.clearRequests();
			const found = await client.client.callTool({
				name: toolName('Read scan'),
				arguments: { scanId },
			});
			const item = parse(found.content?.[0]?.text)?.[0];
			const requests = await sandbox.requests();
			ctx.check(
				`MCP${label}, ${transport}: a tool call reads the scan from the sandbox with the credential`,
				!found.isError &&
					item?.scan_id === scanId &&
					typeof item?.invoice_number === 'string' &&
					requests.some(
						(r) => r.path === `/scans/${scanId}` && r.status === 200 && r.authScheme === 'bearer',
					),
				`${JSON.stringify(found).slice(0, 200)}; sandbox: ${requests.map((r) => `${r.method} ${r.path} ${r.status}`).join(', ')}`,
			);

			const missing = await client.client.callTool({
				name: toolName('Read scan'),
				arguments: { scanId: 424242 },
			});
			const text = missing.content?.[0]?.text ?? '';
			const error = parse(text)?.[0];
			ctx.check(
				`MCP${label}, ${transport}: an unknown scan comes back as a readable error, without item reference or error class`,
				/^Not found/.test(error?.error ?? '') &&
					typeof error?.description === 'string' &&
					!/\(item \d+\)|[A-Z]\w*Error:/.test(text),
				text.slice(0, 300),
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
