/**
 * The action node as an AI tool (issues 27 and 34): what n8n's tool form gives the model, and how
 * a failed call reaches every client (#34 §5). Calls go the two ways n8n makes them, through
 * n8n-core's engine against the sandbox (test/support/tool-call.ts): `mcp` (n8n's MCP Server
 * Trigger, which turns a thrown error into `isError`) and `agent` (the AI Agent's engine request,
 * which hands the model the tool's items). The e2e checks the same in real n8n.
 */
import { NodeHelpers, type INode, type INodeType } from 'n8n-workflow';

import {
	ANSWER_NOTE,
	TOOL_DESCRIPTIONS,
} from '../../nodes/DocumentScanning/actions/tool.descriptions';
import { toolText } from '../../nodes/DocumentScanning/execution/items';
import { ACTION_NODE_TYPE, ACTION_TOOL_TYPE, loadPackage } from '../support/package';
import { runNode } from '../support/run-node';
import { callTool, type ToolPath } from '../support/tool-call';
import { jsonOf, useSandbox } from './helpers';

const sb = useSandbox();
const PATHS: ToolPath[] = ['mcp', 'agent'];
const SCAN_ID = "={{ $fromAI('scanId', 'The numeric ID of the scan', 'number') }}";
const get = { resource: 'scan', operation: 'get', scanId: SCAN_ID };

async function forms(): Promise<{ base: INodeType; tool: INodeType }> {
	const { nodeTypes } = await loadPackage();
	return {
		base: nodeTypes.getByNameAndVersion(ACTION_NODE_TYPE, 1.1) as INodeType,
		tool: nodeTypes.getByNameAndVersion(ACTION_TOOL_TYPE, 1.1) as INodeType,
	};
}

/** Every resource/operation pair of the node's Operation options. */
function operations(type: INodeType): Array<[string, string, string | undefined]> {
	return type.description.properties
		.filter((p) => p.name === 'operation')
		.flatMap((p) =>
			(p.options ?? []).map((o) => [
				String(p.displayOptions?.show?.resource?.[0]),
				String((o as { value: string }).value),
				(o as { action?: string }).action,
			]),
		) as Array<[string, string, string | undefined]>;
}

function nodeOf(type: INodeType, parameters: INode['parameters']): INode {
	const node: INode = {
		id: 'tool',
		name: 'Document Scanning',
		type: type.description.name,
		typeVersion: 1.1,
		position: [0, 0],
		parameters,
	};
	node.parameters = NodeHelpers.getNodeParameters(
		type.description.properties,
		parameters,
		true,
		false,
		node,
		type.description,
	)!;
	return node;
}

const pairs = Object.entries(TOOL_DESCRIPTIONS).flatMap(([r, os]) =>
	Object.keys(os).map((o) => [r, o]),
);

describe('what the model reads about each operation', () => {
	test('every operation has a description for the model, and none without an operation', async () => {
		const { base } = await forms();
		const ops = operations(base).map(([r, o]) => `${r}.${o}`);
		expect(pairs.map(([r, o]) => `${r}.${o}`).sort()).toEqual(ops.sort());
	});

	test.each(pairs)(
		'%s → %s: the tool n8n-core builds carries it, within what tools allow',
		async (resource, operation) => {
			const result = await callTool({
				path: 'mcp',
				parameters: { resource, operation },
				args: {},
				env: sb.env(),
			});
			const text = `${TOOL_DESCRIPTIONS[resource as 'scan'][operation]}${ANSWER_NOTE}`;
			expect(result.offered?.description).toBe(text);
			expect(text.length).toBeGreaterThan(120);
			expect(text.length).toBeLessThan(1024);
			expect(text).toMatch(/Use it |only use it|Do not use it/i);
		},
	);

	test('the texts say what costs a scan credit and what changes the account', () => {
		for (const text of [
			TOOL_DESCRIPTIONS.scan.get,
			TOOL_DESCRIPTIONS.scan.getAll,
			TOOL_DESCRIPTIONS.template.getAll,
			TOOL_DESCRIPTIONS.account.get,
			TOOL_DESCRIPTIONS.webhook.getAll,
			TOOL_DESCRIPTIONS.webhook.getLogs,
		])
			expect(text).toMatch(/Uses no scan credit\.$/);
		expect(TOOL_DESCRIPTIONS.scan.upload).toMatch(/every call is refused/);
		expect(TOOL_DESCRIPTIONS.webhook.create).toMatch(/Changes the account/);
		expect(TOOL_DESCRIPTIONS.webhook.delete).toMatch(/Changes the account/);
	});

	test('the plain node has no tool parameters; a description the user wrote wins', async () => {
		const { base, tool } = await forms();
		const plain = nodeOf(base, { resource: 'webhook', operation: 'create' }).parameters;
		expect(plain).not.toHaveProperty('toolDescription');
		expect(plain).not.toHaveProperty('allowChanges');
		const node = nodeOf(tool, { resource: 'scan', operation: 'get', toolDescription: 'Mine.' });
		expect(NodeHelpers.getToolDescriptionForNode(node, tool)).toBe('Mine.');
	});

	test('the node shows the actions that n8n turns into node and tool names (at most 64 characters)', async () => {
		const { base } = await forms();
		for (const [, , action] of operations(base)) {
			expect(action).toBeDefined();
			expect(`${action} in Document Scanning`.length).toBeLessThanOrEqual(64);
		}
	});

	test('a $fromAI ID is a required number without a default in the schema the model gets', async () => {
		const result = await callTool({ path: 'mcp', parameters: get, args: {}, env: sb.env() });
		expect(result.offered?.schema).toEqual(
			expect.objectContaining({
				type: 'object',
				properties: { scanId: { type: 'number', description: 'The numeric ID of the scan' } },
				required: ['scanId'],
			}),
		);
	});
});

describe('§5 a failed call is a failure to every client, with the same actionable text', () => {
	const NOT_FOUND = 'Not found: Scan 424242 not found.';
	const CHECK_ID = expect.stringMatching(/^Check the ID\./);

	test.each(PATHS)('%s: the call the model made reads the scan', async (path) => {
		const [id] = sb.get().control.seedScans({ count: 1 });
		const result = await callTool({ path, parameters: get, args: { scanId: id }, env: sb.env() });
		expect(result.isError).toBe(false);
		expect(result.executionError).toBeUndefined();
		expect(result.json).toEqual([expect.objectContaining({ scan_id: id, status: 'completed' })]);
	});

	test('mcp: an unknown scan is isError, with our wording and what to do', async () => {
		const result = await callTool({
			path: 'mcp',
			parameters: get,
			args: { scanId: 424242 },
			env: sb.env(),
		});
		expect(result.isError).toBe(true);
		expect(result.text).toMatch(
			/^Error: Not found: Scan 424242 not found\.\n\nDetails: Check the ID\./,
		);
		expect(result.executionError).toBeUndefined();
	});

	test('agent: the same failure is the answer the model reads; the execution goes on', async () => {
		const result = await callTool({
			path: 'agent',
			parameters: get,
			args: { scanId: 424242 },
			env: sb.env(),
		});
		expect(result.json).toEqual([{ error: NOT_FOUND, description: CHECK_ID, httpCode: '404' }]);
		expect(result.executionError).toBeUndefined();
	});

	test.each(PATHS)(
		'%s: a bad argument fails before any request, naming the field, without "Item 0:"',
		async (path) => {
			const result = await callTool({
				path,
				parameters: get,
				args: { scanId: -5 },
				env: sb.env(),
			});
			const wording = 'the field "Scan ID" must be a positive whole number, got "-5"';
			if (path === 'mcp') expect(result.text).toMatch(new RegExp(`^Error: ${wording}`));
			else expect(result.json).toEqual([expect.objectContaining({ error: wording })]);
			expect(result.isError).toBe(path === 'mcp');
			expect(sb.get().control.requests()).toHaveLength(0);
		},
	);

	test.each(PATHS)('%s: 402 and 429 carry the service’s meaning and what to do', async (path) => {
		const account = { resource: 'account', operation: 'get' };
		for (const [status, wording] of [
			[402, /Not enough scan credit/],
			[429, /Rate limit reached/],
		] as const) {
			sb.get().control.clearFaults();
			sb.get().control.addFault({ path: '^/account$', kind: 'status', status, times: 5 });
			const result = await callTool({ path, parameters: account, args: {}, env: sb.env() });
			expect(result.isError).toBe(path === 'mcp');
			expect(result.text).toMatch(wording);
			expect(result.text).toMatch(/Details|description/);
		}
	});

	test.each(PATHS)(
		'%s: a network failure does not tell the model where the service is',
		async (path) => {
			const env = sb.env({ baseUrl: 'http://127.0.0.1:9/api/v1' });
			const result = await callTool({
				path,
				parameters: { resource: 'account', operation: 'get' },
				args: {},
				env,
			});
			expect(result.text).toMatch(/Could not reach the Document Scanning API/);
			expect(result.text).not.toMatch(/127\.0\.0\.1|http:\/\/|:9\b|withheld/);
			expect(result.isError).toBe(path === 'mcp');
		},
	);

	test('the plain node still fails the execution naming the item, and names the host', async () => {
		const missing = await runNode({
			parameters: { resource: 'scan', operation: 'get', scanId: '424242' },
			env: sb.env(),
		});
		expect(missing.error?.message).toBe('Not found: Scan 424242 not found. (item 0)');
		const offline = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			env: sb.env({ baseUrl: 'http://127.0.0.1:9/api/v1' }),
		});
		expect(offline.error?.message).toMatch(/at http:\/\/127\.0\.0\.1:9/);
	});

	test('Continue On Fail of a plain node still gives error items', async () => {
		const result = await runNode({
			parameters: { resource: 'scan', operation: 'get', scanId: '424242' },
			env: sb.env(),
			continueOnFail: true,
		});
		expect(jsonOf(result)).toEqual([expect.objectContaining({ error: `${NOT_FOUND} (item 0)` })]);
	});
});

describe('toolText', () => {
	test.each([
		[
			'Item 3: the field "Scan ID" must be a positive whole number, got nothing',
			'the field "Scan ID" must be a positive whole number, got nothing',
		],
		['Not found: Scan 9 not found. (item 0)', 'Not found: Scan 9 not found.'],
		['Not enough scan credit (item 12)', 'Not enough scan credit'],
		['The listing moved (item 0); nothing was output', 'The listing moved; nothing was output'],
		['A text with item 0 inside stays', 'A text with item 0 inside stays'],
	])('%s', (input, output) => {
		expect(toolText(input)).toBe(output);
	});
});
