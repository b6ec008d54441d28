// A scripted stand-in for an OpenAI-compatible chat model, for the e2e's AI Agent checks
// (tools/e2e/checks/agent*.mjs). n8n's OpenAI Chat Model node, with its credential's Base URL set to
// this server, sends it what a real model would get: the conversation and the tools offered (name,
// description, JSON schema of the parameters). The server records every request, so a check can
// assert on exactly what the model received, and answers from a script written in the user's
// message. Nothing leaves the machine: it listens on 127.0.0.1 only and has no dependencies.
//
// The script (lines of the last user message; anything else in the message is ignored):
//   call <tool name> <JSON arguments>        a tool call, made in the model's first turn
//   call "<phrase>" <JSON arguments>         a call of the one tool whose description mentions
//                                            the phrase (case-insensitive): the model reads them
//   then call …                              a tool call of the next turn (after the results came back)
// Calls of one turn are sent together (parallel tool calls). Like a careful model, it calls a tool
// only with arguments its schema accepts (required ones present, no others when the schema says so,
// JSON types as declared). Once the results of the last turn are in, the model answers in plain
// text with every tool result it got since the user's message:
//   Scripted answer.
//   <tool name>: <the tool message's content, as received>
// A message without a `call` line is answered "Scripted answer. No call in the message."; a call
// it cannot make (a tool not offered, a phrase no description or several mention, arguments the
// schema refuses) makes the answer say why, name the tools offered, and call nothing.
//
// Both ways the node may ask: `stream: true` gets server-sent chat.completion.chunk events (with a
// usage chunk when `stream_options.include_usage` is set), otherwise one chat.completion object.
// GET …/models lists one model, `scripted-model`, for a credential test.
import http from 'node:http';

const MODEL_ID = 'scripted-model';

/**
 * @typedef {object} ModelRequest
 * @property {string} path
 * @property {string | undefined} authorization  the Authorization header the node sent
 * @property {boolean} stream                     whether the node asked for a stream
 * @property {any} body                           the parsed JSON body
 */

/**
 * @typedef {object} ToolCall
 * @property {string} name
 * @property {Record<string, unknown>} args
 */

/**
 * The turns of a script: `call` lines form the first turn, each `then call` line starts or extends
 * the next one. Throws on a line whose arguments are not a JSON object.
 * @param {string} text
 * @returns {ToolCall[][]}
 */
export function parseScript(text) {
	/** @type {ToolCall[][]} */
	const turns = [];
	for (const raw of String(text).split('\n')) {
		const m = /^\s*(then\s+)?call\s+("[^"]*"|\S+)\s*(.*)$/i.exec(raw);
		if (!m) continue;
		const [, then, name, json] = m;
		const args = json.trim() === '' ? {} : JSON.parse(json);
		if (typeof args !== 'object' || args === null || Array.isArray(args))
			throw new Error(`the arguments of "${name}" are not a JSON object: ${json}`);
		if (turns.length === 0 || (then && turns[turns.length - 1].length > 0)) turns.push([]);
		turns[turns.length - 1].push({ name, args });
	}
	return turns;
}

/** Text of a message's content (a string, or a list of parts with `text`). */
export function contentText(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content.map((part) => (typeof part === 'string' ? part : (part?.text ?? ''))).join('');
	return '';
}

/**
 * Why a call cannot go to a tool with these arguments (its JSON schema's `required`, `properties`
 * types and `additionalProperties: false`), or undefined when it can.
 * @param {{ name: string, parameters?: any }} tool
 * @param {Record<string, unknown>} args
 */
export function schemaRefusal(tool, args) {
	const schema = tool.parameters ?? {};
	const properties = schema.properties ?? {};
	const jsonType = (v) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
	const problems = [
		...(schema.required ?? []).filter((key) => !(key in args)).map((key) => `${key} is missing`),
		...Object.keys(args)
			.filter((key) => !(key in properties) && schema.additionalProperties === false)
			.map((key) => `${key} is not a parameter`),
		...Object.entries(args)
			.filter(([key]) => key in properties && properties[key].type !== undefined)
			.filter(([key, value]) => {
				const want = [properties[key].type].flat();
				const got = jsonType(value);
				return !want.includes(got) && !(want.includes('integer') && Number.isInteger(value));
			})
			.map(
				([key, value]) =>
					`${key} must be ${[properties[key].type].flat().join(' or ')}, not ${jsonType(value)}`,
			),
	];
	return problems.length
		? `Arguments of ${tool.name} do not match its schema: ${problems.join('; ')}`
		: undefined;
}

/**
 * The tool a call names: by name, or by a phrase its description mentions ("…"); a string says
 * why there is none.
 * @param {string} name
 * @param {Array<{ name: string, description?: string }>} tools
 */
function toolFor(name, tools) {
	if (!name.startsWith('"')) return tools.find((t) => t.name === name) ?? `Not offered: ${name}`;
	const phrase = name.slice(1, -1).toLowerCase();
	const found = tools.filter((t) =>
		String(t.description ?? '')
			.toLowerCase()
			.includes(phrase),
	);
	if (found.length === 1) return found[0];
	return found.length === 0
		? `No tool's description mentions "${phrase}"`
		: `Several tools' descriptions mention "${phrase}": ${found.map((t) => t.name).join(', ')}`;
}

/**
 * What the model does next for a conversation: the next turn's tool calls, or the final answer.
 * @param {any[]} messages the request's `messages`
 * @param {Array<{ name: string, description?: string, parameters?: any }>} offered the tools offered
 * @returns {{ calls: ToolCall[] } | { text: string }}
 */
export function nextStep(messages, offered) {
	let lastUser = -1;
	messages.forEach((m, i) => {
		if (m?.role === 'user') lastUser = i;
	});
	const since = messages.slice(lastUser + 1);
	const turns = parseScript(contentText(messages[lastUser]?.content));
	// Turns already made: n8n may send one turn's parallel calls back as one assistant message
	// or as one message per call, so count the calls, not the messages.
	const made = since.flatMap((m) => (m?.role === 'assistant' ? (m.tool_calls ?? []) : [])).length;
	let turnsDone = 0;
	for (let calls = 0; turnsDone < turns.length; turnsDone++) {
		calls += turns[turnsDone].length;
		if (made < calls) break;
	}
	if (turns.length === 0) return { text: 'Scripted answer. No call in the message.' };
	if (turnsDone < turns.length) {
		const calls = [];
		const refusals = [];
		for (const call of turns[turnsDone]) {
			const tool = toolFor(call.name, offered);
			const refusal = typeof tool === 'string' ? tool : schemaRefusal(tool, call.args);
			if (refusal || typeof tool === 'string') refusals.push(refusal);
			else calls.push({ name: tool.name, args: call.args });
		}
		if (refusals.length === 0) return { calls };
		const names = offered.map((t) => t.name).join(', ') || 'none';
		return { text: `Scripted answer. ${refusals.join('. ')}. Offered tools: ${names}.` };
	}
	// Each tool message after the user's, named by the call it answers.
	const names = new Map();
	for (const m of since)
		for (const call of m?.tool_calls ?? []) names.set(call.id, call.function?.name);
	const results = since
		.filter((m) => m?.role === 'tool')
		.map((m) => `${names.get(m.tool_call_id) ?? 'unknown tool'}: ${contentText(m.content)}`);
	return { text: ['Scripted answer.', ...results].join('\n') };
}

/**
 * Starts the scripted model on 127.0.0.1 (a free port unless given).
 * @param {{ port?: number }} [options]
 * @returns {Promise<{ baseUrl: string, requests: ModelRequest[], clear: () => void, close: () => Promise<void> }>}
 *   baseUrl ends in /v1 (the credential's Base URL); requests grows with every chat request.
 */
export async function startScriptedModel({ port = 0 } = {}) {
	/** @type {ModelRequest[]} */
	const requests = [];
	let counter = 0;
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			try {
				handle(req, Buffer.concat(chunks).toString('utf8'), res);
			} catch (err) {
				send(res, 400, {
					error: { message: String(err?.message ?? err), type: 'invalid_request' },
				});
			}
		});
	});

	function handle(req, text, res) {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		if (req.method === 'GET' && url.pathname.endsWith('/models')) {
			send(res, 200, {
				object: 'list',
				data: [{ id: MODEL_ID, object: 'model', created: 0, owned_by: 'e2e' }],
			});
			return;
		}
		if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
			send(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
			return;
		}
		const body = JSON.parse(text || '{}');
		const stream = body.stream === true;
		requests.push({
			path: url.pathname,
			authorization: req.headers.authorization,
			stream,
			body,
		});
		const step = nextStep(
			body.messages ?? [],
			toolsOffered({ body }).filter((t) => t.name),
		);
		const id = `chatcmpl-scripted-${++counter}`;
		const model = body.model ?? MODEL_ID;
		const toolCalls =
			'calls' in step
				? step.calls.map((c, index) => ({
						index,
						id: `call_${counter}_${index}`,
						type: 'function',
						function: { name: c.name, arguments: JSON.stringify(c.args) },
					}))
				: undefined;
		const content = 'text' in step ? step.text : null;
		const finish = toolCalls ? 'tool_calls' : 'stop';
		const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
		if (!stream) {
			send(res, 200, {
				id,
				object: 'chat.completion',
				created: Math.floor(Date.now() / 1000),
				model,
				choices: [
					{
						index: 0,
						message: {
							role: 'assistant',
							content,
							...(toolCalls
								? { tool_calls: toolCalls.map(({ index: _index, ...call }) => call) }
								: {}),
						},
						finish_reason: finish,
					},
				],
				usage,
			});
			return;
		}
		res.writeHead(200, {
			'content-type': 'text/event-stream',
			'cache-control': 'no-cache',
			connection: 'keep-alive',
		});
		const base = {
			id,
			object: 'chat.completion.chunk',
			created: Math.floor(Date.now() / 1000),
			model,
		};
		const event = (data) => res.write(`data: ${JSON.stringify(data)}\n\n`);
		event({
			...base,
			choices: [
				{
					index: 0,
					delta: {
						role: 'assistant',
						content: toolCalls ? null : content,
						...(toolCalls ? { tool_calls: toolCalls } : {}),
					},
					finish_reason: null,
				},
			],
		});
		event({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
		if (body.stream_options?.include_usage) event({ ...base, choices: [], usage });
		res.end('data: [DONE]\n\n');
	}

	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve(undefined));
	});
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	return {
		baseUrl: `http://127.0.0.1:${address.port}/v1`,
		requests,
		clear: () => {
			requests.length = 0;
		},
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve(undefined));
			}),
	};
}

function send(res, status, json) {
	const text = JSON.stringify(json);
	res.writeHead(status, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(text),
	});
	res.end(text);
}

/** The tools a request offered: [{ name, description, parameters }]. */
export function toolsOffered(request) {
	return (request?.body?.tools ?? []).map((t) => ({
		name: t?.function?.name,
		description: t?.function?.description,
		parameters: t?.function?.parameters,
	}));
}

/** The tool messages of a request: [{ name, content }] (name from the call they answer). */
export function toolMessages(request) {
	const messages = request?.body?.messages ?? [];
	const names = new Map();
	for (const m of messages) for (const c of m?.tool_calls ?? []) names.set(c.id, c.function?.name);
	return messages
		.filter((m) => m?.role === 'tool')
		.map((m) => ({ name: names.get(m.tool_call_id), content: contentText(m.content) }));
}
