// n8n's AI Agent with the Document Scanning node as its tools (issues 27 and 34), on every n8n line.
//
// The model is the scripted model (tools/e2e/scripted-model.mjs) behind n8n's own OpenAI Chat Model
// node: it reads the tools offered (a call may name a tool by what its description says), calls them
// with arguments their schemas accept, then answers with what they returned. The checks read what
// the model received, what reached the sandbox, the chat's answer and the execution's status, with
// the functions of tool-checks.mjs (each shown to fail for a broken tool by test/tools/):
//   - calls reach the sandbox with the credential; lists are lists with entries, not errors;
//   - every tool offered has a strict schema with the parameters its $fromAI calls name, and each
//     description promises only fields its answers have (§2);
//   - §1: a scan with 40 line items and a list of 50 scans come back compact, sized against version
//     1's "Extracted Fields" (the figures are printed); Limit above 50 is refused;
//   - §5: a failing call (404, 402, 429, an unreachable service) is the model's answer with our
//     wording and what to do, no item reference, no internal address; the execution succeeds;
//   - §3: no signing secret and no URL query reaches the model; webhook changes are refused unless
//     allowed; a Document Scanning Trigger's webhook is never deleted;
//   - §4: Upload is refused, a PDF attached in the chat included, and nothing is uploaded;
//   - issue 40: an oversized scan comes back within the answer's bound, saying what it left out;
//     a non-JSON answer (a web app's 200 HTML page) is the model's { error }, without the page;
//   - a streaming chat asks the model for a stream and streams the answer.
import { restOf, sandboxOf, unwrap, waitFor } from './support.mjs';
import {
	agentWorkflow,
	chat,
	createActive,
	createModelCredential,
	createOfflineCredential,
	shippedToolDescriptions,
	toolName,
	TOOL_SCHEMAS,
	TOOLS,
} from './agent-workflows.mjs';
import {
	agentFailure,
	boundProblems,
	failureProblems,
	listProblems,
	schemaProblems,
	secretProblems,
	unkeptPromises,
	OVERSIZED_SCAN,
	PAGE_FAULT,
} from './tool-checks.mjs';
import { startScriptedModel, toolMessages, toolsOffered } from '../scripted-model.mjs';

const WEBHOOK_ID = 'e2e0a9e7-0000-4000-8000-00000000a9e1';
const STREAM_WEBHOOK_ID = 'e2e0a9e7-0000-4000-8000-00000000a9e2';
const OFFLINE = 'Read scan offline';
/** A trigger's webhook as the Document Scanning Trigger names it, its URL with a sealed query. */
const TRIGGER_HOOK = {
	name: 'n8n: e2e / Document Scanning Trigger',
	query: 'seal=e2e-sealed-secret',
};

/** @param {import('./support.mjs').E2eContext} ctx */
export async function checkAgent(ctx) {
	const model = await startScriptedModel();
	try {
		const credential = await createModelCredential(ctx, model);
		const offline = await createOfflineCredential(ctx);
		const workflowId = await createActive(
			ctx,
			agentWorkflow(ctx, {
				name: 'e2e: AI Agent with Document Scanning tools',
				webhookId: WEBHOOK_ID,
				modelCredential: credential,
				tools: { ...TOOLS, [OFFLINE]: TOOLS['Read scan'] },
				credentials: { [OFFLINE]: offline },
				files: true,
			}),
		);
		const run = runner(ctx, model, workflowId, WEBHOOK_ID);
		/** Every answer each tool gave the model, for the check of its description. */
		const answers = new Map();
		const record = (turn) => {
			for (const { name, content } of turn.results)
				answers.set(name, [...(answers.get(name) ?? []), parse(content)]);
			return turn;
		};
		const offered = await callsAndLists(ctx, async (m, f) => record(await run(m, f)));
		await compactAnswers(ctx, async (m) => record(await run(m)));
		await failingCalls(ctx, run, offline);
		await boundsAndPages(ctx, async (m) => record(await run(m)));
		await safety(ctx, async (m) => record(await run(m)));
		await uploadTool(ctx, run);
		promisesKept(ctx, offered, answers);
		await streaming(ctx, model, credential);
	} finally {
		await model.close();
	}
}

/**
 * One chat turn: clears the model's and the sandbox's logs, sends the message, waits for the
 * execution. Returns { answer, requests (model), sandboxRequests, results (tool messages of the
 * last model request), status (execution), seen (every tool message the model got, as text) }.
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
			{ timeoutMs: 60_000 },
		);
		const requests = [...model.requests];
		return {
			answer,
			requests,
			sandboxRequests: await sandbox.requests(),
			results: toolMessages(requests.at(-1)),
			status: execution?.status ?? 'none',
			seen: requests.flatMap((r) => toolMessages(r).map((m) => m.content)).join('\n'),
		};
	};
}

/** The first answer of `tool` in a turn (the model's first call of it). */
const resultOf = (turn, tool) => turn.results.find((r) => r.name === toolName(tool))?.content;

async function callsAndLists(ctx, run) {
	const sandbox = sandboxOf(ctx);
	const [scanId] = await sandbox.seedScans({ count: 3, template_id: 3 });
	const [failed] = await sandbox.seedScans({ count: 1, status: 'failed' });
	const [invalid] = await sandbox.seedScans({ count: 1, status: 'validation_failed' });
	const balance = unwrap((await sandbox.api('/account')).body);
	const turn = await run(
		[
			`What is my balance, and what is in scan ${scanId}?`,
			'call "scan credit balance" {}',
			`call ${toolName('Read scan')} {"scanId": ${scanId}}`,
			`call ${toolName('List scans')} {"limit": 3, "status": "completed", "templateId": "3"}`,
			`call ${toolName('List templates')} {}`,
			`then call ${toolName('Read scan')} {"scanId": ${failed}}`,
			`then call ${toolName('Read scan')} {"scanId": ${invalid}}`,
			`then call ${toolName('List scans')} {"limit": 5, "status": "", "templateId": ""}`,
		].join('\n'),
	);
	const got = parse(resultOf(turn, 'Account balance'))?.[0];
	const scan = parse(resultOf(turn, 'Read scan'))?.[0];
	ctx.check(
		'AI Agent: the model finds the balance tool by its description; the calls reach the sandbox with the credential (Bearer)',
		got?.remaining_scans === balance.remaining_scans &&
			turn.sandboxRequests.some((r) => r.path === '/account' && r.status === 200) &&
			turn.sandboxRequests.some((r) => r.path === `/scans/${scanId}` && r.status === 200) &&
			turn.sandboxRequests.every((r) => r.authScheme === 'bearer'),
		turn.sandboxRequests
			.map((r) => `${r.method} ${r.path} ${r.status} (${r.authScheme})`)
			.join(', '),
	);
	ctx.check(
		'AI Agent: the model gets the compact scan (the name the user gave, the fields) and the chat answer carries it',
		scan?.scan_id === scanId &&
			typeof scan?.invoice_number === 'string' &&
			typeof scan?.original_filename === 'string' &&
			turn.answer.output.includes(`"remaining_scans":${balance.remaining_scans}`) &&
			turn.answer.output.includes(scan.invoice_number) &&
			turn.status === 'success',
		`HTTP ${turn.answer.status}, execution ${turn.status}, answer: ${turn.answer.output.slice(0, 200)}`,
	);
	const scans = listProblems(parse(resultOf(turn, 'List scans')), {
		atLeast: 3,
		each: (s) =>
			s.status === 'completed' && s.template_id === 3
				? undefined
				: `${s.status} of template ${s.template_id}`,
	});
	const templates = listProblems(parse(resultOf(turn, 'List templates')), {
		atLeast: 4,
		each: (t) =>
			typeof t.id === 'number' && typeof t.name === 'string' ? undefined : 'no id and name',
	});
	ctx.check(
		'AI Agent: List scans (status and template filters from the model) and List templates answer lists with entries',
		scans.length === 0 && templates.length === 0,
		[...scans, ...templates].join('; ') || 'completed scans of template 3; 4 templates',
	);

	const offered = toolsOffered(turn.requests[0]);
	const texts = shippedToolDescriptions();
	const problems = Object.entries(TOOLS).flatMap(([name, p]) => {
		const tool = offered.find((t) => t.name === toolName(name));
		if (!tool) return [`${name} not offered`];
		return [
			...schemaProblems(tool, TOOL_SCHEMAS[name]),
			...(tool.description === texts[p.resource][p.operation]
				? []
				: [`${name}: not the package's description`]),
		];
	});
	ctx.check(
		'AI Agent: every tool offered carries its operation’s description and a strict schema with the parameters its $fromAI calls name',
		problems.length === 0,
		problems.join('; ') ||
			offered
				.map((t) => `${t.name}(${Object.keys(t.parameters?.properties ?? {}).join(', ')})`)
				.join(' '),
	);
	return offered;
}

async function compactAnswers(ctx, run) {
	const sandbox = sandboxOf(ctx);
	const rows = Array.from({ length: 40 }, (_, i) => ({
		position: i + 1,
		article_number: `ART-${String(i + 1).padStart(5, '0')}`,
		description: `Delivered article number ${i + 1}`,
		quantity: (i % 7) + 1,
		unit: 'pcs',
		unit_price: 12.5,
	}));
	const data = {
		invoice_number: 'INV-E2E-40',
		supplier_name: 'Atlas',
		total_amount: 1234.5,
		currency: 'EUR',
		line_items: rows,
	};
	const [scanId] = await sandbox.seedScans({ count: 50, template_id: 3, extracted_data: data });
	const get = await run(
		`call ${toolName('Read scan')} {"scanId": ${scanId}}\ncall ${toolName('Read scan fields')} {"scanId": ${scanId}}`,
	);
	const many = await run(
		`call ${toolName('List scans')} {"limit": 50, "status": "", "templateId": ""}\ncall ${toolName('List scans fields')} {"limit": 50}`,
	);
	const size = (turn, tool) => resultOf(turn, tool)?.length ?? 0;
	const compact = parse(resultOf(get, 'Read scan'))?.[0];
	const listed = parse(resultOf(many, 'List scans'));
	const figures = `Get of 40 line items: ${size(get, 'Read scan fields')} -> ${size(get, 'Read scan')} characters; Get Many of 50: ${size(many, 'List scans fields')} -> ${size(many, 'List scans')} (Extracted Fields -> compact, the default)`;
	ctx.check(
		'AI Agent: compact answers: a scan’s first 10 of 40 line items and not_shown, a list of 50 scans without tables, far smaller than Extracted Fields',
		compact?.line_items?.length === 10 &&
			compact?.not_shown?.line_items === 30 &&
			listed?.length === 50 &&
			listed.every((s) => !('line_items' in s)) &&
			size(get, 'Read scan') < size(get, 'Read scan fields') * 0.4 &&
			size(many, 'List scans') < size(many, 'List scans fields') * 0.1 &&
			get.status === 'success' &&
			many.status === 'success',
		figures,
	);
	const capped = await run(
		`call ${toolName('List scans')} {"limit": 51, "status": "", "templateId": ""}`,
	);
	const problems = failureProblems(
		agentFailure(resultOf(capped, 'List scans')),
		/must be at most 50 for an AI model.*No request was sent/s,
	);
	ctx.check(
		'AI Agent: a Limit above 50 is refused before any request, the model told what to ask instead',
		problems.length === 0 && capped.sandboxRequests.length === 0 && capped.status === 'success',
		problems.join('; ') || resultOf(capped, 'List scans')?.slice(0, 200),
	);
}

async function failingCalls(ctx, run, offline) {
	const sandbox = sandboxOf(ctx);
	const [scanId] = await sandbox.seedScans({ count: 1 });
	const internal = [new URL(ctx.sandboxBaseUrl).host, new URL(offline.baseUrl).host];
	const cases = [
		{
			what: 'an unknown scan (404)',
			tool: 'Read scan',
			args: { scanId: 424242 },
			wording: /^Not found: Scan 424242.*Check the ID/s,
		},
		{
			what: 'no credit left (402)',
			tool: 'Account balance',
			args: {},
			fault: { method: 'GET', path: '^/account$', kind: 'status', status: 402, times: 5 },
			wording: /^Not enough scan credit.*Top up/s,
		},
		{
			what: 'the rate limit (429)',
			tool: 'Read scan',
			args: { scanId },
			fault: { method: 'GET', path: `^/scans/${scanId}$`, kind: 'status', status: 429, times: 5 },
			wording: /^Rate limit reached/,
		},
		{
			what: 'an unreachable service',
			tool: OFFLINE,
			args: { scanId },
			wording: /^Could not reach the Document Scanning API\n\n.*Check the Base URL/s,
		},
	];
	for (const c of cases) {
		if (c.fault) await sandbox.control('POST', '/faults', c.fault);
		try {
			const turn = await run(`call ${toolName(c.tool)} ${JSON.stringify(c.args)}`);
			const content = resultOf(turn, c.tool);
			const problems = failureProblems(agentFailure(content), c.wording, internal);
			ctx.check(
				`AI Agent: ${c.what} is the model's answer with our wording and what to do, no internal address; the execution succeeds`,
				problems.length === 0 &&
					turn.status === 'success' &&
					turn.answer.output.includes(parse(content)?.[0]?.error),
				`execution ${turn.status}; ${problems.join('; ') || `the model got: ${content?.slice(0, 240)}`}`,
			);
		} finally {
			await sandbox.control('DELETE', '/faults');
		}
	}
}

/** Issue 40: the answer's bound on an oversized scan, and a web app's page as an error. */
async function boundsAndPages(ctx, run) {
	const sandbox = sandboxOf(ctx);
	const [scanId] = await sandbox.seedScans(OVERSIZED_SCAN);
	const big = await run(
		`call ${toolName('Read scan')} {"scanId": ${scanId}}\ncall ${toolName('List scans')} {"limit": 1, "status": "", "templateId": ""}`,
	);
	const content = resultOf(big, 'Read scan') ?? '';
	const bound = boundProblems(content);
	ctx.check(
		'AI Agent: an oversized scan comes back within the answer’s bound, saying what it left out',
		bound.length === 0 && parse(content)?.[0]?.scan_id === scanId && big.status === 'success',
		`execution ${big.status}; ${bound.join('; ') || `${content.length} characters`}`,
	);
	await sandbox.control('POST', '/faults', PAGE_FAULT);
	try {
		const turn = await run(`call ${toolName('Account balance')} {}`);
		const problems = failureProblems(
			agentFailure(resultOf(turn, 'Account balance')),
			/page that is not the API’s JSON.*version prefix/s,
			[new URL(ctx.sandboxBaseUrl).host, 'nginx', '<html'],
		);
		ctx.check(
			'AI Agent: a non-JSON answer (a web app’s 200 HTML page) is the model’s { error }, worded without the page',
			problems.length === 0 && turn.status === 'success',
			`execution ${turn.status}; ${problems.join('; ') || resultOf(turn, 'Account balance')?.slice(0, 200)}`,
		);
	} finally {
		await sandbox.control('DELETE', '/faults');
	}
}

async function safety(ctx, run) {
	const sandbox = sandboxOf(ctx);
	const hooks = async () => unwrap((await sandbox.api('/webhooks')).body) ?? [];
	for (const hook of await hooks()) await sandbox.api(`/webhooks/${hook.id}`, { method: 'DELETE' });
	const url = 'https://hooks.example.com/e2e-agent?token=e2e-query-token';
	const refused = await run(
		`call ${toolName('Create webhook')} ${JSON.stringify({ name: 'By the model', url })}`,
	);
	const refusedProblems = failureProblems(
		agentFailure(resultOf(refused, 'Create webhook')),
		/turned off for AI models.*Allow Changes to the Account/s,
	);
	ctx.check(
		'AI Agent: Webhook → Create is refused unless the builder allowed it; nothing reaches the service',
		refusedProblems.length === 0 &&
			refused.sandboxRequests.length === 0 &&
			(await hooks()).length === 0,
		refusedProblems.join('; ') || resultOf(refused, 'Create webhook')?.slice(0, 200),
	);

	const trigger = unwrap(
		(
			await sandbox.api('/webhooks', {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					name: TRIGGER_HOOK.name,
					url: `https://n8n.example/webhook/e2e?${TRIGGER_HOOK.query}`,
					events: ['scan.completed'],
				}),
			})
		).body,
	);
	const created = await run(
		`call ${toolName('Create webhook if allowed')} ${JSON.stringify({ name: 'By the model', url })}\ncall ${toolName('Webhooks')} {}`,
	);
	const made = parse(resultOf(created, 'Create webhook if allowed'))?.[0];
	const secrets = secretProblems(created.seen, [TRIGGER_HOOK.query]);
	ctx.check(
		'AI Agent: allowed, Create answers the webhook without its signing secret; no secret or URL query reaches the model',
		typeof made?.id === 'number' &&
			made?.secret === '[withheld]' &&
			secrets.length === 0 &&
			created.status === 'success',
		secrets.join('; ') ||
			`the model got: ${resultOf(created, 'Create webhook if allowed')?.slice(0, 200)}`,
	);

	const deleted = await run(
		`call ${toolName('Delete webhook')} {"webhookId": ${trigger.id}}\ncall ${toolName('Delete webhook')} {"webhookId": ${made?.id}}`,
	);
	const [first, second] = deleted.results
		.filter((r) => r.name === toolName('Delete webhook'))
		.map((r) => r.content);
	const problems = failureProblems(
		agentFailure(first),
		/belongs to a Document Scanning Trigger.*Nothing was deleted/s,
	);
	const left = (await hooks()).map((h) => h.name);
	ctx.check(
		'AI Agent: Delete removes the model’s webhook and refuses a Document Scanning Trigger’s, saying why',
		problems.length === 0 &&
			parse(second)?.[0]?.deleted === true &&
			left.length === 1 &&
			left[0] === TRIGGER_HOOK.name,
		`${problems.join('; ') || first?.slice(0, 160)}; webhooks left: ${left.join(', ')}`,
	);
	await sandbox.api(`/webhooks/${trigger.id}`, { method: 'DELETE' });
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
	const problems = failureProblems(
		agentFailure(resultOf(turn, 'Upload document')),
		/cannot run as an AI tool.*never a file.*no credit was used/s,
	);
	ctx.check(
		'AI Agent: Upload is refused with its reason, a PDF attached in the chat included; nothing is uploaded',
		problems.length === 0 && turn.sandboxRequests.length === 0 && turn.status === 'success',
		`execution ${turn.status}, ${turn.sandboxRequests.length} request(s); ${problems.join('; ') || resultOf(turn, 'Upload document')?.slice(0, 200)}`,
	);
}

/** Each description promises only fields its tool's answers in this run have (§2). */
function promisesKept(ctx, offered, answers) {
	const problems = [...answers.entries()]
		// The "fields" tools set Output: theirs are not the compact answers the texts describe.
		.filter(([name]) => name !== toolName(OFFLINE) && !name.endsWith('_fields'))
		.filter(([, list]) => list.some((a) => Array.isArray(a) && !a[0]?.error))
		.flatMap(([name, list]) =>
			unkeptPromises(offered.find((t) => t.name === name)?.description ?? '', list).map(
				(p) => `${name} ${p}`,
			),
		);
	ctx.check(
		'AI Agent: each tool’s description promises only fields its answers have',
		problems.length === 0 && answers.size >= 6,
		problems.join('; ') || [...answers.keys()].join(', '),
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

export function parse(text) {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}
