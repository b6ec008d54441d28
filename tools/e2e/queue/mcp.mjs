// Queue mode: n8n's MCP Server Trigger with the Document Scanning tools, reached by the MCP SDK
// client at the webhook process (where n8n routes production webhooks in queue mode). The same
// checks as single mode (tools/e2e/checks/mcp.mjs). Where the tool runs differs by line: n8n
// 1.x runs the tool inside the webhook process that holds the MCP session; 2.x hands each call to
// a worker (the trigger's queued execution strategy) and answers on the same session.
import { CREDENTIAL, SANDBOX_KEY } from '../../n8n/local.mjs';
import { checkMcpClient, MCP_PATH, mcpWorkflow } from '../checks/mcp.mjs';

/** @param {any} ctx the queue e2e's context (index.mjs) */
export async function runMcpChecks(ctx) {
	const workflow = mcpWorkflow({ line: ctx.line, credential: CREDENTIAL }, 'queue e2e: MCP server');
	const created = await ctx.rest.call('POST', 'workflows', workflow);
	await ctx.rest.activate(created.id);
	await checkMcpClient(
		{ check: ctx.check, sandboxBaseUrl: ctx.sandbox.baseUrl, apiKey: SANDBOX_KEY },
		new URL(`mcp/${MCP_PATH}`, ctx.procs.webhook.url),
		' (queue mode, webhook process)',
	);
	await ctx.rest.deactivate(created.id);
}
