// n8n's AI Agent with the Document Scanning node as its tools (issue 27), on every n8n line.
//
// The model is the scripted model (tools/e2e/scripted-model.mjs) behind n8n's own OpenAI Chat Model
// node: it calls the tools a chat message names, then answers with what they returned. The checks
// read what the model received (tools offered, their descriptions and schemas, the tool results),
// what reached the sandbox, the chat's answer and the execution's status:
//   - the calls reach the sandbox with the credential, and their data reaches the model and the answer;
//   - each tool offered carries the package's description of its operation, and a schema whose every
//     parameter is required and has no default (optional tool parameters break strict schema checks);
//   - a failing call (unknown scan 404, 402, 429 from the sandbox's faults) is answered to the model
//     as a readable error item, without item references or error class names, and the execution
//     succeeds;
//   - a raw scan with many rows reaches the model whole, in one tool message;
//   - a file attached in the chat does not reach the Upload tool, which answers a readable error;
//   - a streaming chat asks the model for a stream and streams the answer.
import { restOf, sandboxOf, unwrap, waitFor } from './support.mjs';
import {
	agentWorkflow,
	chat,
	createActive,
	createModelCredential,
	shippedToolDescriptions,
	toolName,
	TOOLS,
} from './agent-workflows.mjs';
import { startScriptedModel, toolMessages, toolsOffered } from '../scripted-model.mjs';

const WEBHOOK_ID = 'e2e0a9e7-0000-4000-8000-00000000a9e1';
const STREAM_WEBHOOK_ID = 'e2e0a9e7-0000-4000-8000-00000000a9e2';
/** Rows of the large scan: a long delivery note's line items. */
const MANY_ROWS = 400;

/** @param {import('./support.mjs').E2eContext} ctx */
export async function checkAgent(ctx) {
	const model = await startScriptedModel();
	try {
		const credential = await createModelCredential(ctx, model);
		const workflowId = await createActive(
			ctx,
			agentWorkflow(ctx, {
				name: 'e2e: AI Agent with Document Scanning tools',
				webhookId: WEBHOOK_ID,
				modelCredential: credential,
				tools: TOOLS,
				files: true,
			}),
		);
		const run = runner(ctx, model, workflowId, WEBHOOK_ID);
		await callsAndSchemas(ctx, run);
		await failingCalls(ctx, run);
		await manyRows(ctx, run);
		await uploadTool(ctx, run);
		await streaming(ctx, model, credential);
	} finally {
		await model.close();
	}
}

/**
 * One chat turn: clears the model's and the sandbox's logs, sends the message, waits for the
 * execution. Returns { answer, requests (model), sandboxRequests, results (tool messages of the
 * last model request), status (execution) }.
 */
function runner(ctx, model, workflowId, webhookId) {
	const sandbox = sandboxOf(ctx);
	const rest = restOf(ctx);
	return async (message, file) => {
		model.clear();
		await sandbox.clearRequests();
		const before = (await rest.executions(workflowId, 1))[0]?.id;
		const answer = await chat(ctx, webhookId, message, { file });
		const execution = await waitFor(
			async () => {
				const latest = (await rest.executions(workflowId, 1))[0];
				return latest && latest.id !== before && !['new', 'running'].includes(latest.status)
					? latest
					: undefined;
			},
			{ timeoutMs: 30_000 },
		);
		const requests = [...model.requests];
		return {
			answer,
			requests,
			sandboxRequests: await sandbox.requests(),
			results: toolMessages(requests.at(-1)),
			status: execution?.status ?? 'none',
		};
	};
}

async function callsAndSchemas(ctx, run) {
	const sandbox = sandboxOf(ctx);
	const [scanId] = await sandbox.seedScans({ count: 1 });
	const balance = unwrap((await sandbox.api('/account')).body);
	const turn = await run(
		`What is my balance, and what is in scan ${scanId}?\ncall ${toolName('Account balance')} {}\ncall ${toolName('Read scan')} {"scanId": ${scanId}}`,
	);
	const byName = Object.fromEntries(turn.results.map((r) => [r.name, parse(r.content)]));
	const got = byName[toolName('Account balance')]?.[0];
	const scan = byName[toolName('Read scan')]?.[0];
	const seen = turn.sandboxRequests.map(
		(r) => `${r.method} ${r.path} ${r.status} (${r.authScheme})`,
	);
	ctx.check(
		'AI Agent: the tool calls reach the sandbox with the credential (GET /account, GET /scans/<id>, Bearer)',
		turn.sandboxRequests.some((r) => r.path === '/account' && r.status === 200) &&
			turn.sandboxRequests.some((r) => r.path === `/scans/${scanId}` && r.status === 200) &&
			turn.sandboxRequests.every((r) => r.authScheme === 'bearer'),
		seen.join(', '),
	);
	ctx.check(
		'AI Agent: the model gets the balance and the scan’s extracted fields, and the chat answer carries them',
		got?.remaining_scans === balance.remaining_scans &&
			scan?.scan_id === scanId &&
			typeof scan?.invoice_number === 'string' &&
			turn.answer.output.includes(`"remaining_scans":${balance.remaining_scans}`) &&
			turn.answer.output.includes(scan.invoice_number) &&
			turn.status === 'success',
		`HTTP ${turn.answer.status}, execution ${turn.status}, answer: ${turn.answer.output.slice(0, 200)}`,
	);

	// What the model was offered: the package's description of each operation, strict schemas.
	const offered = toolsOffered(turn.requests[0]);
	const texts = shippedToolDescriptions();
	const wrong = Object.entries(TOOLS)
		.map(([name, p]) => [
			offered.find((t) => t.name === toolName(name)),
			texts[p.resource][p.operation],
			name,
		])
		.filter(([tool, text]) => tool?.description !== text)
		.map(([tool, , name]) => `${name}: ${JSON.stringify(tool?.description ?? 'not offered')}`);
	ctx.check(
		'AI Agent: every tool offered to the model carries the package’s description of its operation',
		offered.length === Object.keys(TOOLS).length && wrong.length === 0,
		wrong.length
			? wrong.join('; ')
			: offered.map((t) => `${t.name}: "${t.description.slice(0, 50)}…"`).join('; '),
	);
	const schemaProblems = offered.flatMap((tool) => strictSchemaProblems(tool));
	const readScan = offered.find((t) => t.name === toolName('Read scan'))?.parameters;
	const listScans = offered.find((t) => t.name === toolName('List scans'))?.parameters;
	ctx.check(
		'AI Agent: the schemas the model gets: scanId and limit are required numbers, nothing optional or defaulted',
		schemaProblems.length === 0 &&
			readScan?.properties?.scanId?.type === 'number' &&
			listScans?.properties?.limit?.type === 'number',
		schemaProblems.length
			? schemaProblems.join('; ')
			: `Read_scan ${JSON.stringify(readScan?.properties)}, List_scans ${JSON.stringify(listScans?.properties)}`,
	);
}

/** Parameters a strict schema check (OpenAI strict mode, Gemini) would refuse or find optional. */
export function strictSchemaProblems(tool) {
	const schema = tool?.parameters ?? {};
	const properties = Object.keys(schema.properties ?? {});
	const required = new Set(schema.required ?? []);
	return [
		...properties.filter((p) => !required.has(p)).map((p) => `${tool.name}.${p} is optional`),
		...properties
			.filter((p) => schema.properties[p] && 'default' in schema.properties[p])
			.map((p) => `${tool.name}.${p} has a default`),
		...(schema.type === 'object' ? [] : [`${tool.name}: schema type ${schema.type}`]),
	];
}

/** An error item fit for a model: our wording, a hint, no item reference, no error class name. */
function readableError(result, wording) {
	const item = parse(result?.content)?.[0];
	return (
		typeof item?.error === 'string' &&
		wording.test(item.error) &&
		typeof item.description === 'string' &&
		item.description.length > 20 &&
		!/\(item \d+\)|^Item \d+:/i.test(item.error) &&
		!/\b(Node(Api|Operation)Error|[A-Z]\w*Error):/.test(result.content)
	);
}

async function failingCalls(ctx, run) {
	const sandbox = sandboxOf(ctx);
	const [scanId] = await sandbox.seedScans({ count: 1 });
	const cases = [
		{
			what: 'an unknown scan (404)',
			tool: 'Read scan',
			args: { scanId: 424242 },
			wording: /^Not found/,
		},
		{
			what: 'no credit left (402)',
			tool: 'Account balance',
			args: {},
			fault: { method: 'GET', path: '^/account$', kind: 'status', status: 402, times: 5 },
			wording: /^Not enough scan credit/,
		},
		{
			what: 'the rate limit (429)',
			tool: 'Read scan',
			args: { scanId },
			fault: { method: 'GET', path: `^/scans/${scanId}$`, kind: 'status', status: 429, times: 5 },
			wording: /^Rate limit reached/,
		},
	];
	for (const c of cases) {
		if (c.fault) await sandbox.control('POST', '/faults', c.fault);
		try {
			const turn = await run(`call ${toolName(c.tool)} ${JSON.stringify(c.args)}`);
			const result = turn.results.find((r) => r.name === toolName(c.tool));
			ctx.check(
				`AI Agent: ${c.what} comes back to the model as a readable error, and the execution succeeds`,
				readableError(result, c.wording) &&
					turn.status === 'success' &&
					turn.answer.status === 200 &&
					turn.answer.output.includes(parse(result.content)[0].error),
				`execution ${turn.status}, the model got: ${result?.content?.slice(0, 300) ?? 'no tool message'}`,
			);
		} finally {
			await sandbox.control('DELETE', '/faults');
		}
	}
}

async function manyRows(ctx, run) {
	const sandbox = sandboxOf(ctx);
	const rows = Array.from({ length: MANY_ROWS }, (_, i) => ({
		position: i + 1,
		article: `ART-${String(i + 1).padStart(5, '0')}`,
		description: `Delivered article number ${i + 1}`,
		quantity: (i % 7) + 1,
		unit_price: 12.5,
	}));
	const [scanId] = await sandbox.seedScans({ count: 1, reviewed_data: { line_items: rows } });
	const raw = await run(`call ${toolName('Read raw scan')} {"scanId": ${scanId}}`);
	const fields = await run(`call ${toolName('Read scan')} {"scanId": ${scanId}}`);
	const rawResults = raw.results.filter((r) => r.name === toolName('Read raw scan'));
	const rawScan = parse(rawResults[0]?.content)?.[0];
	const fieldsText = fields.results.find((r) => r.name === toolName('Read scan'))?.content ?? '';
	ctx.check(
		`AI Agent: a raw scan with ${MANY_ROWS} rows reaches the model whole, in one tool message`,
		rawResults.length === 1 &&
			rawScan?.id === scanId &&
			rawScan?.reviewed_data?.line_items?.length === MANY_ROWS &&
			raw.status === 'success',
		`${rawResults.length} tool message(s), ${rawScan?.reviewed_data?.line_items?.length ?? 0} rows, ${rawResults[0]?.content.length ?? 0} characters (Extracted Fields of the same scan: ${fieldsText.length})`,
	);
}

async function uploadTool(ctx, run) {
	// The user attaches a PDF in the chat; the tool still gets only the model's arguments.
	const turn = await run(
		`Scan the attached invoice\ncall ${toolName('Upload document')} {"templateId": 1}`,
		{
			name: 'attached-invoice.pdf',
			type: 'application/pdf',
			bytes: Buffer.from('%PDF-1.4\n% attached in the chat\n%%EOF\n'),
		},
	);
	const result = turn.results.find((r) => r.name === toolName('Upload document'));
	const item = parse(result?.content)?.[0];
	const uploads = turn.sandboxRequests.filter((r) => r.method === 'POST' && r.path === '/scans');
	ctx.check(
		'AI Agent: a PDF attached in the chat does not reach the Upload tool, which answers a readable error and uploads nothing',
		typeof item?.error === 'string' &&
			/binary|file/i.test(item.error) &&
			!/\(item \d+\)|^Item \d+:/.test(item.error) &&
			uploads.length === 0 &&
			turn.status === 'success',
		`execution ${turn.status}, ${uploads.length} upload(s), the model got: ${result?.content?.slice(0, 300) ?? 'no tool message'}`,
	);
}

async function streaming(ctx, model, credential) {
	const workflowId = await createActive(
		ctx,
		agentWorkflow(ctx, {
			name: 'e2e: AI Agent streaming its answer',
			webhookId: STREAM_WEBHOOK_ID,
			modelCredential: credential,
			tools: { 'Account balance': TOOLS['Account balance'] },
			streaming: true,
		}),
	);
	const turn = await runner(
		ctx,
		model,
		workflowId,
		STREAM_WEBHOOK_ID,
	)(`call ${toolName('Account balance')} {}`);
	const balance = unwrap((await sandboxOf(ctx).api('/account')).body);
	ctx.check(
		'AI Agent, streaming chat: the model is asked for a stream, and the streamed answer carries the balance',
		turn.requests.length >= 2 &&
			turn.requests.every((r) => r.stream) &&
			turn.answer.output.includes(`"remaining_scans":${balance.remaining_scans}`) &&
			turn.status === 'success',
		`${turn.requests.length} model request(s), stream: ${turn.requests.map((r) => r.stream).join(', ')}; answer: ${turn.answer.output.slice(0, 160)}`,
	);
}

function parse(text) {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}
