// n8n 2.x's own MCP server (the instance's, for AI clients that build workflows) finds the
// Document Scanning node with its builder hint (nodes/DocumentScanning/builderHint.ts): the same
// node search n8n's AI workflow builder uses. n8n 1.x has neither, and ignores the hint.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PACKAGE_NAME, ROOT } from '../../n8n/local.mjs';
import { restOf } from './support.mjs';

/** @param {import('./support.mjs').E2eContext} ctx */
export async function checkNodeSearch(ctx) {
	if (ctx.line.major < 2) {
		ctx.log(
			`SKIP node search: n8n ${ctx.line.version} has no instance MCP server or builder hints`,
		);
		return;
	}
	const require = createRequire(import.meta.url);
	const { BUILDER_HINT } = require(path.join(ROOT, 'dist/nodes/DocumentScanning/builderHint.js'));
	const rest = restOf(ctx);
	await rest.call('PATCH', 'mcp/settings', { mcpAccessEnabled: true });
	const key = await rest.call('GET', 'mcp/api-key');
	const client = new Client({ name: 'document-scanning-e2e', version: '1.0.0' });
	try {
		await client.connect(
			new StreamableHTTPClientTransport(new URL('mcp-server/http', ctx.n8nUrl), {
				requestInit: { headers: { authorization: `Bearer ${key.apiKey}` } },
			}),
		);
		const found = await client.callTool({
			name: 'search_nodes',
			arguments: { queries: ['document scanning'] },
		});
		const text = JSON.stringify(found.content ?? found);
		ctx.check(
			"n8n's node search (instance MCP server, search_nodes) finds the node with its builder hint",
			text.includes(`${PACKAGE_NAME}.documentScanning`) &&
				text.includes(BUILDER_HINT.searchHint.slice(0, 60)),
			text.slice(0, 300),
		);
	} finally {
		await client.close().catch(() => undefined);
	}
}
