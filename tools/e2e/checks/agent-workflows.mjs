// The workflows of the AI checks (agent.mjs, mcp.mjs) and what they share: the Document Scanning
// tools an agent or an MCP client gets, the AI Agent wired to the scripted model
// (tools/e2e/scripted-model.mjs), n8n's chat webhook, and the tool descriptions the package ships.
import { createRequire } from 'node:module';
import path from 'node:path';
import { PACKAGE_NAME, ROOT } from '../../n8n/local.mjs';
import { restOf, sleep } from './support.mjs';

/** The texts the package gives the model for each operation (dist/, as packed and installed). */
export function shippedToolDescriptions() {
	const require = createRequire(import.meta.url);
	return require(path.join(ROOT, 'dist/nodes/DocumentScanning/actions/tool.descriptions.js'))
		.TOOL_DESCRIPTIONS;
}

/**
 * Our node in its tool form. `name` is also the tool's name for the model (spaces become `_`).
 * @param {import('./support.mjs').E2eContext} ctx
 * @param {string} name
 * @param {Record<string, unknown>} parameters
 * @param {[number, number]} position
 */
export function toolNode(ctx, name, parameters, position) {
	return {
		id: `tool-${name.replace(/\W+/g, '-').toLowerCase()}`,
		name,
		type: `${PACKAGE_NAME}.documentScanningTool`,
		typeVersion: 1,
		position,
		parameters,
		credentials: { documentScanningApi: { id: ctx.credential.id, name: ctx.credential.name } },
	};
}

/** A scan ID the model fills: `$fromAI` with type number (the API's IDs are whole numbers). */
export const SCAN_ID_FROM_AI =
	"={{ $fromAI('scanId', 'The numeric ID of the scan, e.g. 1234', 'number') }}";

/** The tools of the AI checks: name -> parameters (the example has its own, checked alike). */
export const TOOLS = {
	'Account balance': { resource: 'account', operation: 'get' },
	'Read scan': {
		resource: 'scan',
		operation: 'get',
		scanId: SCAN_ID_FROM_AI,
		options: { output: 'fields' },
	},
	'Read raw scan': { resource: 'scan', operation: 'get', scanId: SCAN_ID_FROM_AI },
	'List scans': {
		resource: 'scan',
		operation: 'getAll',
		limit: "={{ $fromAI('limit', 'How many scans to list, newest first (1 to 50)', 'number') }}",
		options: { output: 'fields' },
	},
	'List templates': { resource: 'template', operation: 'getAll', returnAll: true },
	'Upload document': {
		resource: 'scan',
		operation: 'upload',
		templateId: {
			__rl: true,
			mode: 'id',
			value:
				"={{ $fromAI('templateId', 'The numeric ID of the template to read the document with', 'number') }}",
		},
	},
};

/** The tool name n8n gives a node (n8n-workflow's nodeNameToToolName). */
export const toolName = (nodeName) => nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_');

/**
 * Chat Trigger (public, answering with the agent's output or a stream) -> AI Agent, whose model is
 * n8n's OpenAI Chat Model at the scripted model, and whose tools are `tools` (name -> parameters).
 * @returns {{ name: string, active: boolean, nodes: any[], connections: Record<string, any>, settings: Record<string, unknown> }}
 */
export function agentWorkflow(
	ctx,
	{ name, webhookId, modelCredential, tools, streaming = false, files = false },
) {
	const agentVersion = ctx.line.major >= 2 ? 3.1 : 3;
	const toolNames = Object.keys(tools);
	return {
		name,
		active: false,
		nodes: [
			{
				id: 'chat',
				name: 'When chat message received',
				type: '@n8n/n8n-nodes-langchain.chatTrigger',
				typeVersion: 1.1,
				position: [0, 0],
				webhookId,
				parameters: {
					public: true,
					options: {
						...(streaming ? { responseMode: 'streaming' } : {}),
						...(files ? { allowFileUploads: true } : {}),
					},
				},
			},
			{
				id: 'agent',
				name: 'AI Agent',
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: agentVersion,
				position: [240, 0],
				parameters: { options: streaming ? { enableStreaming: true } : {} },
			},
			modelNode(modelCredential, [160, 220]),
			...toolNames.map((tool, i) => toolNode(ctx, tool, tools[tool], [320 + 160 * i, 220])),
		],
		connections: {
			'When chat message received': { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': {
				ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
			},
			...Object.fromEntries(
				toolNames.map((tool) => [
					tool,
					{ ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
				]),
			),
		},
		settings: { executionOrder: 'v1' },
	};
}

/** n8n's OpenAI Chat Model (1.2: chat completions, not the Responses API) on the scripted model. */
export function modelNode(credential, position) {
	return {
		id: 'model',
		name: 'OpenAI Chat Model',
		type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		typeVersion: 1.2,
		position,
		parameters: { model: { __rl: true, mode: 'id', value: 'scripted-model' }, options: {} },
		credentials: { openAiApi: { id: credential.id, name: credential.name } },
	};
}

/** Creates the OpenAI credential whose Base URL is the scripted model; { id, name }. */
export async function createModelCredential(ctx, model) {
	const name = 'Scripted model (e2e)';
	const created = await restOf(ctx).call('POST', 'credentials', {
		name,
		type: 'openAiApi',
		data: { apiKey: 'sk-scripted-e2e', url: model.baseUrl },
	});
	return { id: String(created.id), name };
}

/** Creates a workflow and activates it; its id. */
export async function createActive(ctx, workflow) {
	const rest = restOf(ctx);
	const created = await rest.call('POST', 'workflows', workflow);
	await rest.activate(created.id);
	return String(created.id);
}

/**
 * Sends one message to a public chat (POST /webhook/<id>/chat) and returns { status, output }:
 * the agent's answer (lastNode) or the streamed text put together. With `file` ({ name, type,
 * bytes }) the message is multipart, and n8n answers at once (the output is then empty). n8n 2.x
 * registers the chat webhook just after activation answers: a 404 is tried again for up to 30 s.
 * @param {{ n8nUrl: string }} ctx
 * @param {string} webhookId
 * @param {string} chatInput
 * @param {{ sessionId?: string, file?: { name: string, type: string, bytes: Uint8Array } }} [options]
 */
export async function chat(ctx, webhookId, chatInput, { sessionId = 'e2e', file } = {}) {
	const url = new URL(`webhook/${webhookId}/chat`, ctx.n8nUrl);
	const deadline = Date.now() + 30_000;
	/** A message with a file goes as n8n's chat sends it: multipart, the file in `files`. */
	const body = () => {
		if (!file) return JSON.stringify({ action: 'sendMessage', sessionId, chatInput });
		const form = new FormData();
		form.append('action', 'sendMessage');
		form.append('sessionId', sessionId);
		form.append('chatInput', chatInput);
		form.append('files', new Blob([file.bytes], { type: file.type }), file.name);
		return form;
	};
	for (;;) {
		const res = await fetch(url, {
			method: 'POST',
			headers: file ? {} : { 'content-type': 'application/json' },
			body: body(),
			signal: AbortSignal.timeout(120_000),
		});
		const text = await res.text();
		if (res.status === 404 && Date.now() < deadline) {
			await sleep(300);
			continue;
		}
		return { status: res.status, output: chatOutput(text), raw: text };
	}
}

/** The answer in a chat response: `{ output }`, or the `item` chunks of a stream joined. */
export function chatOutput(text) {
	try {
		const json = JSON.parse(text);
		if (typeof json?.output === 'string') return json.output;
	} catch {
		// a stream: one JSON object per line
	}
	return text
		.split('\n')
		.map((line) => {
			try {
				return JSON.parse(line);
			} catch {
				return undefined;
			}
		})
		.filter((chunk) => chunk?.type === 'item' && typeof chunk.content === 'string')
		.map((chunk) => chunk.content)
		.join('');
}
