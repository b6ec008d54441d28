/**
 * Tool cases (issue 40): the action node called as an AI tool through n8n-core's tool paths (MCP
 * and AI Agent, test/support/tool-call.ts) against the sandbox, whose answers carry what a model
 * must never read (a secret under any name and at any depth, the API key, the service's host, a
 * URL's user and query) and may be oversized, or a page instead of JSON. Invariant 11: every
 * answer and error is within the tool's bound and holds none of them.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox } from '../../sandbox/server';
import { callTool, type ToolPath } from '../support/tool-call';
import type { Execution } from './execution';
import type { Violation } from './invariants';

/** The answer's bound a tool has unless its builder sets another (nodes' ANSWER_BOUND). */
const BOUND = 20_000;
const SEALED = 'seal-5ecret-0f-the-trigger';

/** What one scan's extracted data holds: which secrets, where, and how large it is. */
export interface ToolScan {
	/** A secret's value under a secret's name: top level, nested, or in a list. */
	secretAt: 'none' | 'top' | 'nested' | 'list';
	/** The secret's value, the key or the host repeated in a plain text field. */
	echo: 'none' | 'secret' | 'key' | 'host' | 'url';
	/** A text of this many characters, and a table of this many rows inside an object. */
	textChars: number;
	rows: number;
}

export interface ToolCall {
	path: ToolPath;
	op: 'get' | 'getAll' | 'webhooks' | 'create' | 'account';
	/** The service answers this call with a page (a web app's 200, a proxy's 400) instead of JSON. */
	page: 0 | 200 | 400;
}

export interface ToolCase {
	kind: 'tool';
	envelope: 'data' | 'bare';
	scans: ToolScan[];
	calls: ToolCall[];
}

const weighted = <T>(...pairs: Array<[number, T]>): fc.Arbitrary<T> =>
	fc.oneof(...pairs.map(([weight, value]) => ({ weight, arbitrary: fc.constant(value) })));

export const toolCaseArb: fc.Arbitrary<ToolCase> = fc.record({
	kind: fc.constant('tool' as const),
	envelope: fc.constantFrom<'data' | 'bare'>('data', 'bare'),
	scans: fc.array(
		fc.record({
			secretAt: fc.constantFrom<ToolScan['secretAt']>('none', 'top', 'nested', 'list'),
			echo: fc.constantFrom<ToolScan['echo']>('none', 'secret', 'key', 'host', 'url'),
			textChars: weighted([3, 40], [1, 30_000], [1, 200_000]),
			rows: weighted([3, 3], [1, 40], [1, 5_000]),
		}),
		{ minLength: 1, maxLength: 4 },
	),
	calls: fc.array(
		fc.record({
			path: fc.constantFrom<ToolPath>('mcp', 'agent'),
			op: fc.constantFrom<ToolCall['op']>('get', 'getAll', 'webhooks', 'create', 'account'),
			page: weighted<ToolCall['page']>([6, 0], [1, 200], [1, 400]),
		}),
		{ minLength: 1, maxLength: 3 },
	),
});

const PARAMETERS: Record<ToolCall['op'], INodeParameters> = {
	get: { resource: 'scan', operation: 'get' },
	getAll: { resource: 'scan', operation: 'getAll', limit: 50 },
	webhooks: { resource: 'webhook', operation: 'getAll' },
	create: {
		resource: 'webhook',
		operation: 'create',
		name: 'By a model',
		url: `https://user:pass-${SEALED}@hooks.example.com/in?seal=${SEALED}`,
		allowChanges: true,
	},
	account: { resource: 'account', operation: 'get' },
};
const PATHS: Record<ToolCall['op'], string> = {
	get: '^/scans/\\d+$',
	getAll: '^/scans$',
	webhooks: '^/webhooks$',
	create: '^/webhooks$',
	account: '^/account$',
};

function extracted(scan: ToolScan, i: number, host: string): IDataObject {
	const secret = `sk-${SEALED}-${i}`;
	const text = 'Lorem ipsum dolor sit amet. '.repeat(Math.ceil(scan.textChars / 28));
	const echo = {
		none: '',
		secret,
		key: DEFAULT_API_KEY,
		host,
		url: `https://reader:pw-${SEALED}@docs.example.com/d?token=${SEALED}`,
	}[scan.echo];
	// A value is a secret when the service gives it as one (under a secret's name) in that answer.
	const at = scan.echo === 'secret' && scan.secretAt === 'none' ? 'top' : scan.secretAt;
	return {
		invoice_number: `INV-${i}`,
		note: `${echo} ${text.slice(0, scan.textChars)}`,
		summary: { rows: Array.from({ length: scan.rows }, (_, r) => ({ position: r + 1 })) },
		...(at === 'top' ? { signing_key: secret } : {}),
		...(at === 'nested' ? { payment: { signing: { secret } } } : {}),
		...(at === 'list' ? { keys: [{ api_token: secret }] } : {}),
	};
}

export async function runToolCase(sandbox: Sandbox, c: ToolCase): Promise<Execution[]> {
	const { control } = sandbox;
	control.reset({ envelope: c.envelope, allowInsecureWebhookUrls: true });
	const host = new URL(sandbox.baseUrl).host;
	const ids = c.scans.flatMap((scan, i) =>
		control.seedScans({ count: 1, template_id: 3, extracted_data: extracted(scan, i, host) }),
	);
	// A trigger's webhook, its sealed secret in the URL's query.
	await fetch(`${sandbox.baseUrl}/webhooks`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${DEFAULT_API_KEY}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({
			name: 'n8n: Orders / Trigger',
			url: `https://n8n.example.com/webhook/x?ds_seal=${SEALED}`,
			events: ['scan.completed'],
		}),
	});
	const executions: Execution[] = [];
	for (const [index, call] of c.calls.entries()) {
		control.clearFaults();
		if (call.page)
			control.addFault({ kind: 'status', status: call.page, page: true, path: PATHS[call.op] });
		const started = Date.now();
		const result = await callTool({
			path: call.path,
			parameters: { ...PARAMETERS[call.op], scanId: String(ids[index % ids.length]) },
			args: {},
			env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY },
		});
		executions.push({
			label: `tool call ${index + 1} (${call.path}, ${call.op}${call.page ? `, a ${call.page} page` : ''})`,
			op: 'tool',
			items: [],
			paired: [],
			inputs: 1,
			continueOnFail: false,
			timedOut: false,
			boundMs: 60_000,
			elapsedMs: Date.now() - started,
			requests: [],
			wire: [],
			records: {},
			...(result.executionError ? { error: { message: result.executionError } } : {}),
			answer: result.text,
			hidden: [DEFAULT_API_KEY, host, SEALED, 'nginx', '<html'],
		});
	}
	control.clearFaults();
	return executions;
}

/** 11. Every tool answer and error is within the bound and holds no secret, key, host or page. */
export const toolAnswersSafe = (executions: Execution[]): Violation[] =>
	executions
		.filter((e) => e.op === 'tool' && e.answer !== undefined)
		.flatMap((e) => {
			const text = `${e.answer!} ${e.error?.message ?? ''}`;
			const found = (e.hidden ?? []).filter((value) => text.includes(value));
			const words = [
				...(e.answer!.length > BOUND ? [`${e.answer!.length} characters, above ${BOUND}`] : []),
				...found.map((value) => `it holds "${value.slice(0, 24)}"`),
			];
			return words.length
				? [
						{
							invariant: 11,
							where: e.label,
							detail: `${words.join('; ')}: ${text.slice(Math.max(0, text.indexOf(found[0] ?? '') - 120), 160 + Math.max(0, text.indexOf(found[0] ?? '') - 120))}`,
						},
					]
				: [];
		});
