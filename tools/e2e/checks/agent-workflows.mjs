// The workflows of the AI checks (agent.mjs, mcp.mjs) and what they share: the Document Scanning
// tools an agent or an MCP client gets, the AI Agent wired to the scripted model
// (tools/e2e/scripted-model.mjs), n8n's chat webhook, and the tool descriptions the package ships.
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { PACKAGE_NAME, ROOT } from '../../n8n/local.mjs';
import { restOf, sleep } from './support.mjs';

/** The texts the package gives the model for each operation (dist/, as packed and installed). */
export function shippedToolDescriptions() {
	const require = createRequire(import.meta.url);
	const { ANSWER_NOTE, TOOL_DESCRIPTIONS } = require(
		path.join(ROOT, 'dist/nodes/DocumentScanning/actions/tool.descriptions.js'),
	);
	// Each text ends with the note on the answer's bound (what n8n's tool form saves by default).
	return Object.fromEntries(
		Object.entries(TOOL_DESCRIPTIONS).map(([resource, texts]) => [
			resource,
			Object.fromEntries(Object.entries(texts).map(([op, text]) => [op, `${text}${ANSWER_NOTE}`])),
		]),
	);
}

/**
 * Our node in its tool form, of node version 1.1 (what n8n's editor adds) unless TOOL_VERSIONS
 * says otherwise. `name` is also the tool's name for the model (spaces become `_`).
 * @param {import('./support.mjs').E2eContext} ctx
 * @param {string} name
 * @param {Record<string, unknown>} parameters
 * @param {[number, number]} position
 * @param {{ id: string, name: string }} [credential] the Document Scanning credential (ctx's by default)
 */
export function toolNode(ctx, name, parameters, position, credential = ctx.credential) {
	return {
		id: `tool-${name.replace(/\W+/g, '-').toLowerCase()}`,
		name,
		type: `${PACKAGE_NAME}.documentScanningTool`,
		typeVersion: TOOL_VERSIONS[name] ?? 1.1,
		position,
		parameters,
		credentials: { documentScanningApi: { id: credential.id, name: credential.name } },
	};
}

const fromAi = (key, description, type = 'string') =>
	`={{ $fromAI('${key}', '${description}', '${type}') }}`;

/** A scan ID the model fills: `$fromAI` with type number (the API's IDs are whole numbers). */
export const SCAN_ID_FROM_AI = fromAi('scanId', 'The numeric ID of the scan, e.g. 1234', 'number');
const LIMIT = fromAi('limit', 'How many scans to list, newest first (1 to 50)', 'number');
const listScans = {
	resource: 'scan',
	operation: 'getAll',
	limit: LIMIT,
	filters: {
		status: fromAi(
			'status',
			'Only scans in this status: uploaded, processing, completed, validation_failed or failed; an empty string for every status',
		),
		templateId: {
			__rl: true,
			mode: 'id',
			value: fromAi(
				'templateId',
				'Only scans of this template (its ID); an empty string for every template',
			),
		},
	},
};
const webhookCreate = {
	resource: 'webhook',
	operation: 'create',
	name: fromAi('name', 'A name for the webhook'),
	url: fromAi('url', 'The https URL that receives the scan events'),
};

/** The tools of the AI checks: name -> parameters (the example has its own, checked alike). */
export const TOOLS = {
	'Account balance': { resource: 'account', operation: 'get' },
	'Read scan': { resource: 'scan', operation: 'get', scanId: SCAN_ID_FROM_AI },
	'List scans': listScans,
	'List templates': { resource: 'template', operation: 'getAll', returnAll: true },
	'Upload document': {
		resource: 'scan',
		operation: 'upload',
		templateId: {
			__rl: true,
			mode: 'id',
			value: fromAi(
				'templateId',
				'The numeric ID of the template to read the document with',
				'number',
			),
		},
	},
	'Create webhook': webhookCreate,
	'Create webhook if allowed': { ...webhookCreate, allowChanges: true },
	'Delete webhook': {
		resource: 'webhook',
		operation: 'delete',
		allowChanges: true,
		webhookId: fromAi('webhookId', 'The numeric ID of the webhook', 'number'),
	},
	Webhooks: { resource: 'webhook', operation: 'getAll' },
	// Tools that set Output "Extracted Fields" (version 1), the answer recommended before compact ones.
	'Read scan fields': {
		resource: 'scan',
		operation: 'get',
		scanId: SCAN_ID_FROM_AI,
		options: { output: 'fields' },
		answerBound: 100_000_000, // the answer as before the bound (issue 40)
	},
	'List scans fields': {
		resource: 'scan',
		operation: 'getAll',
		limit: LIMIT,
		options: { output: 'fields' },
		answerBound: 100_000_000, // the answer as before the bound (issue 40)
	},
};

/** Node versions of the tools that are not 1.1. */
export const TOOL_VERSIONS = { 'Read scan fields': 1, 'List scans fields': 1 };

/** The parameters each tool offers the model ({ name: JSON type }), as its `$fromAI` calls say. */
export const TOOL_SCHEMAS = {
	'Account balance': {},
	'Read scan': { scanId: 'number' },
	'List scans': { limit: 'number', status: 'string', templateId: 'string' },
	'List templates': {},
	'Upload document': { templateId: 'number' },
	'Create webhook': { name: 'string', url: 'string' },
	'Create webhook if allowed': { name: 'string', url: 'string' },
	'Delete webhook': { webhookId: 'number' },
	Webhooks: {},
	'Read scan fields': { scanId: 'number' },
	'List scans fields': { limit: 'number' },
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
	{ name, webhookId, modelCredential, tools, streaming = false, files = false, credentials = {} },
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
			...toolNames.map((tool, i) =>
				toolNode(ctx, tool, tools[tool], [320 + 160 * i, 220], credentials[tool]),
			),
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

/**
 * Creates a Document Scanning credential whose Base URL nothing answers (a closed port of this
 * machine): { id, name, baseUrl }.
 */
export async function createOfflineCredential(ctx) {
	const name = 'Document Scanning offline (e2e)';
	const baseUrl = `http://127.0.0.1:${await closedPort()}/api/v1`;
	const created = await restOf(ctx).call('POST', 'credentials', {
		name,
		type: 'documentScanningApi',
		data: { baseUrl, apiKey: 'sk-offline', authHeader: 'authorization' },
	});
	return { id: String(created.id), name, baseUrl };
}

/** A port nothing listens on: one the system gave a server that is closed again. */
async function closedPort() {
	const server = net.createServer();
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
	await new Promise((resolve) => server.close(() => resolve(undefined)));
	return port;
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
