import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_TYPE, isPlainObject } from '../../shared/transport';
import { errorItem, toItems } from './items';

/**
 * The node as an AI tool: n8n's second form of a `usableAsTool` node (`…documentScanningTool`),
 * called by an AI Agent or the MCP Server Trigger with one item of the model's arguments.
 */
export function runsAsTool(node: Pick<INode, 'type'>): boolean {
	return node.type.endsWith('Tool');
}

/** Whether a failing item gives its `{ error }` item and the others go on (not as a tool). */
export function goesOnAfterFailure(ctx: IExecuteFunctions): boolean {
	return !runsAsTool(ctx.getNode()) && ctx.continueOnFail();
}

/** A call a model may not make, or with a value it may not give. */
export function refusal(ctx: IExecuteFunctions, message: string, description: string) {
	return new NodeOperationError(ctx.getNode(), message, { itemIndex: 0, description });
}

/** Refused before any request: an upload (a call carries no file), a change not allowed. */
function refuseAsTool(ctx: IExecuteFunctions, resource: string, operation: string): void {
	if (resource === 'scan' && operation === 'upload')
		throw refusal(
			ctx,
			'Scan → Upload cannot run as an AI tool: a tool call carries only the model’s arguments, never a file',
			'Nothing was uploaded and no credit was used. To scan a document from a chat, the workflow uploads the attached file before the agent (README, "AI agents and MCP").',
		);
	const change = resource === 'webhook' && ['create', 'delete'].includes(operation);
	// The saved value, never an expression: a model must not fill its own guard ($fromAI).
	if (change && ctx.getNode().parameters.allowChanges !== true)
		throw refusal(
			ctx,
			`Webhook → ${operation === 'create' ? 'Create' : 'Delete'} changes the account and is turned off for AI models`,
			'The workflow’s builder can turn on "Allow Changes to the Account" in this tool. No request was sent.',
		);
}

/**
 * One call as a tool. A failure is thrown (n8n's MCP Server Trigger answers `isError`), but in an
 * AI Agent's engine request (`rewireOutputLogTo`), where n8n 1.x would fail the whole execution
 * and 2.x drop the description, it is the answer `[{ error, description }]`. Answers and errors
 * are redacted (`withoutSecrets`); an answer is then bounded (`boundAnswer`).
 */
export async function toolCall(
	ctx: IExecuteFunctions,
	resource: string,
	operation: string,
	run: () => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	let items: INodeExecutionData[];
	const known = await credentialSecrets(ctx);
	const safe = (json: IDataObject) => withoutSecrets(json, known);
	try {
		refuseAsTool(ctx, resource, operation);
		items = await run();
	} catch (error) {
		const answer = safe(errorItem(error, 0, true).json);
		if (ctx.getNode().rewireOutputLogTo === NodeConnectionTypes.AiTool) return toItems([answer], 0);
		const { error: message, description } = answer as { error: string; description?: string };
		const failure = new NodeOperationError(ctx.getNode(), message, { description });
		// Set after n8n's constructor (it swaps a text naming an error code), with the description
		failure.message = description ? `${message}\n\nDetails: ${description}` : message; // 2.x queue mode drops it
		throw failure;
	}
	const answers = items.map((item) => safe(item.json));
	// Never below the editor's minimum (an imported workflow may hold anything).
	const bound = Math.max(
		MIN_ANSWER_BOUND,
		Number(ctx.getNode().parameters.answerBound) || ANSWER_BOUND,
	);
	return toItems(boundAnswer(answers, bound), 0);
}

/** A field whose value is a secret, whatever it holds (`secret`, `signing_key`, `hmac_key`, `key`, …). */
const SECRET = /secret|password|token|api_?key|signing|credential|hmac|(^|_)key$/i;
/** A webhook signing secret by its form, wherever it stands. */
const SIGNING_SECRET = /\bwhsec_[A-Za-z0-9_-]+/g;
/** A URL: scheme (1), `user:password@`, address (2), query and fragment. */
const URL_PARTS = /\b([a-z][\w+.-]*:\/\/)(?:[^\s/?#@]*@)?([^\s?#"'<>]*)(?:[?#][^\s"'<>]*)?/gi;

/** The API key and the Base URL's host, with and without its port (none without a credential). */
async function credentialSecrets(ctx: IExecuteFunctions): Promise<string[]> {
	const saved = await ctx.getCredentials(CREDENTIAL_TYPE).catch(() => undefined);
	const base = String(saved?.baseUrl).trim();
	const url = URL.canParse(base) ? new URL(base) : undefined;
	return [String(saved?.apiKey ?? ''), url?.host ?? '', url?.hostname ?? ''];
}

const walk = (value: unknown, key: string, leaf: (v: unknown, k: string) => unknown): unknown => {
	if (Array.isArray(value)) return value.map((entry) => walk(entry, key, leaf));
	if (!isPlainObject(value)) return leaf(value, key);
	const under = (k: string) => (SECRET.test(key) ? key : k); // all of a secret is secret
	return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, under(k), leaf)]));
};

/**
 * What a model may read, at any depth: a field named like a secret, its value and `known` read
 * `[withheld]` wherever they appear; URLs lose `user:password@`, query and fragment.
 */
export function withoutSecrets(json: IDataObject, known: string[] = []): IDataObject {
	const values = [...known]; // and every value under a secret's name, at any depth
	walk(json, '', (v, k) => SECRET.test(k) && typeof v === 'string' && values.push(v));
	// Short values (a host such as `api`) only as a whole word, longer ones anywhere.
	const escaped = values
		.filter((v) => v.length > 0)
		.sort((a, b) => b.length - a.length)
		.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
		.map((v) => (v.length < 4 ? `\\b${v}\\b` : v));
	const found = new RegExp(escaped.join('|') || '$^', 'gi');
	return walk(json, '', (v, k) => {
		if (SECRET.test(k) && v !== null && v !== undefined) return '[withheld]';
		if (typeof v !== 'string') return v;
		return v
			.replace(found, '[withheld]')
			.replace(SIGNING_SECRET, '[withheld]')
			.replace(URL_PARTS, '$1$2');
	}) as IDataObject;
}

/**
 * `value`, its strings cut to `chars` (never inside a character), and lists and objects below
 * the top at any depth to `rows` entries (objects: ten times as many keys); `notShown` counts by path.
 */
export function shorten(
	value: unknown,
	chars: number,
	rows: number,
	path: string,
	notShown: IDataObject,
) {
	const inner = (v: unknown, at: string): unknown => shorten(v, chars, rows, at, notShown);
	if (typeof value === 'string' && value.length > chars) {
		const cut = value.slice(0, /[\uD800-\uDBFF]/.test(value[chars - 1] ?? '') ? chars - 1 : chars);
		return `${cut}… (${value.length - cut.length} more characters not shown)`;
	}
	if (Array.isArray(value)) {
		if (value.length > rows) notShown[path] = Number(notShown[path] ?? 0) + value.length - rows;
		return value.slice(0, rows).map((entry, i) => inner(entry, `${path}[${i}]`));
	}
	if (!isPlainObject(value)) return value;
	const at = (key: string) => (path ? `${path}.${key}` : key);
	let entries = Object.entries(value);
	if (path !== '' && entries.length > rows * 10) {
		notShown[path] = Number(notShown[path] ?? 0) + entries.length - rows * 10;
		entries = entries.slice(0, rows * 10);
	}
	return Object.fromEntries(entries.map(([key, v]) => [key, inner(v, at(key))]));
}

/** The bound of a tool's whole answer, in characters of its JSON, unless the builder set one. */
export const ANSWER_BOUND = 20_000;
export const MIN_ANSWER_BOUND = 1_000;

/** Within `bound` characters: texts and lists ever shorter, then the last results left out (counted). */
export function boundAnswer(answers: IDataObject[], bound: number): IDataObject[] {
	const size = (value: unknown) => JSON.stringify(value).length;
	if (size(answers) <= bound) return answers;
	let cut: IDataObject[] = answers;
	for (const [step, chars] of [2000, 500, 100, 40, 20].entries()) {
		const rows = [10, 5, 2, 1, 0][step];
		cut = answers.map(({ not_shown: earlier, ...answer }) => {
			const notShown: IDataObject = isPlainObject(earlier) ? { ...earlier } : {};
			const json = shorten(answer, chars, rows, '', notShown) as IDataObject;
			return Object.keys(notShown).length > 0 ? { ...json, not_shown: notShown } : json;
		});
		if (size(cut) <= bound) return cut;
	}
	const kept: IDataObject[] = [];
	let total = 40; // the brackets and the last { not_shown: { results } }
	for (const answer of cut)
		if ((total += size(answer) + 1) <= bound) kept.push(answer);
		else break;
	const left = { not_shown: { results: cut.length - kept.length } };
	return kept.length < cut.length ? [...kept, left] : kept;
}
