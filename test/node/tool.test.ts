/**
 * The action node as an AI tool (issue 27): what n8n's tool form gives the model (description per
 * operation, the `$fromAI` parameters), and what a call answers, run through n8n-core's engine as
 * the tool form against the sandbox. The e2e checks the same in real n8n with a scripted model.
 */
import {
	NodeHelpers,
	traverseNodeParameters,
	type FromAIArgument,
	type IDataObject,
	type INode,
	type INodeType,
} from 'n8n-workflow';

import { TOOL_DESCRIPTIONS } from '../../nodes/DocumentScanning/actions/tool.descriptions';
import { toolText } from '../../nodes/DocumentScanning/execution/tool';
import { ACTION_NODE_TYPE, ACTION_TOOL_TYPE, loadPackage } from '../support/package';
import { runNode } from '../support/run-node';
import { jsonOf, useSandbox } from './helpers';

const sb = useSandbox();

async function forms(): Promise<{ base: INodeType; tool: INodeType }> {
	const { nodeTypes } = await loadPackage();
	return {
		base: nodeTypes.getByNameAndVersion(ACTION_NODE_TYPE, 1) as INodeType,
		tool: nodeTypes.getByNameAndVersion(ACTION_TOOL_TYPE, 1) as INodeType,
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
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	// As n8n's Workflow does: the parameters with their defaults, seen by the tool form.
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

describe('what the model reads about each operation', () => {
	test('every operation has a description for the model, and none without an operation', async () => {
		const { base } = await forms();
		const ops = operations(base).map(([r, o]) => `${r}.${o}`);
		const described = Object.entries(TOOL_DESCRIPTIONS).flatMap(([r, os]) =>
			Object.keys(os).map((o) => `${r}.${o}`),
		);
		expect(described.sort()).toEqual(ops.sort());
	});

	test.each(
		Object.entries(TOOL_DESCRIPTIONS).flatMap(([r, os]) => Object.keys(os).map((o) => [r, o])),
	)(
		'%s → %s: the tool form gives the model its description (n8n-workflow getToolDescriptionForNode)',
		async (resource, operation) => {
			const { tool } = await forms();
			const node = nodeOf(tool, { resource, operation });
			const text = NodeHelpers.getToolDescriptionForNode(node, tool);
			expect(text).toBe(TOOL_DESCRIPTIONS[resource as 'scan'][operation]);
			// What it does, what it returns, when to use it: sentences, within what tools allow.
			expect(text.length).toBeGreaterThan(120);
			expect(text.length).toBeLessThan(1024);
			expect(text).toMatch(/Use it |only use it/i);
		},
	);

	test('the texts say what costs a scan credit and what changes the account', () => {
		expect(TOOL_DESCRIPTIONS.scan.upload).toMatch(/uses one scan credit/);
		for (const text of [
			TOOL_DESCRIPTIONS.scan.get,
			TOOL_DESCRIPTIONS.scan.getAll,
			TOOL_DESCRIPTIONS.template.getAll,
			TOOL_DESCRIPTIONS.account.get,
		])
			expect(text).toMatch(/Uses no scan credit\.$/);
		expect(TOOL_DESCRIPTIONS.webhook.create).toMatch(/Changes the account/);
		expect(TOOL_DESCRIPTIONS.webhook.delete).toMatch(/Changes the account/);
	});

	test('the plain node has no tool description parameter; a description the user wrote wins', async () => {
		const { base, tool } = await forms();
		expect(nodeOf(base, { resource: 'scan', operation: 'get' }).parameters).not.toHaveProperty(
			'toolDescription',
		);
		const node = nodeOf(tool, { resource: 'scan', operation: 'get', toolDescription: 'Mine.' });
		expect(NodeHelpers.getToolDescriptionForNode(node, tool)).toBe('Mine.');
	});

	test('the node shows the actions that n8n turns into node and tool names (at most 64 characters)', async () => {
		const { base } = await forms();
		for (const [, , action] of operations(base)) {
			expect(action).toBeDefined();
			// "<action> in Document Scanning" is the default node name, and the tool name the model sees.
			expect(`${action} in Document Scanning`.length).toBeLessThanOrEqual(64);
		}
	});
});

describe('parameters a model fills with $fromAI', () => {
	const fromAi = (parameters: INode['parameters']) => {
		const args: FromAIArgument[] = [];
		traverseNodeParameters(parameters, args);
		return args;
	};

	test('the documented scan ID is a required number without a default', () => {
		const [arg] = fromAi({
			scanId: "={{ $fromAI('scanId', 'The numeric ID of the scan, e.g. 1234', 'number') }}",
		});
		expect(arg).toEqual(expect.objectContaining({ key: 'scanId', type: 'number' }));
		expect(arg.defaultValue).toBeUndefined();
	});
});

describe('a call of the tool form', () => {
	const call = (parameters: INode['parameters'], args: IDataObject) =>
		runNode({
			parameters,
			items: [{ json: args }],
			env: sb.env(),
			nodeType: ACTION_TOOL_TYPE,
			nodeName: 'Read scan',
		});

	const get = {
		resource: 'scan',
		operation: 'get',
		scanId: "={{ $fromAI('scanId', 'The numeric ID of the scan', 'number') }}",
		options: { output: 'fields' },
	};

	test('reads the scan the model named, with the model’s argument', async () => {
		const [id] = sb.get().control.seedScans({ count: 1 });
		const result = await call(get, { scanId: id });
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)).toEqual([expect.objectContaining({ scan_id: id, status: 'completed' })]);
	});

	test('an unknown scan is the answer, not an exception: our wording and hint, no item reference', async () => {
		const result = await call(get, { scanId: 424242 });
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)).toEqual([
			{
				error: 'Not found: Scan 424242 not found.',
				description: expect.stringContaining('Check the ID'),
				httpCode: '404',
			},
		]);
	});

	test('a bad argument fails before any request, naming the field, without "Item 0:"', async () => {
		const result = await call(get, { scanId: 'twelve' });
		expect(result.error).toBeUndefined();
		const [item] = jsonOf(result);
		expect(item.error).toBe('the field "Scan ID" must be a positive whole number, got "twelve"');
		expect(sb.get().control.requests()).toHaveLength(0);
	});

	test('402 and 429 are answered with the service’s meaning and what to do', async () => {
		sb.get().control.addFault({ path: '^/account$', kind: 'status', status: 402, times: 3 });
		const balance = await call({ resource: 'account', operation: 'get' }, {});
		expect(jsonOf(balance)).toEqual([
			expect.objectContaining({ error: 'Not enough scan credit', httpCode: '402' }),
		]);
		sb.get().control.clearFaults();
		sb.get().control.addFault({ path: '^/account$', kind: 'status', status: 429, times: 3 });
		const limited = await call({ resource: 'account', operation: 'get' }, {});
		expect(jsonOf(limited)).toEqual([
			expect.objectContaining({
				error: expect.stringMatching(/^Rate limit reached/),
				httpCode: '429',
			}),
		]);
	});

	test('the plain node still fails the execution, naming the item', async () => {
		const result = await runNode({
			parameters: { resource: 'scan', operation: 'get', scanId: '424242' },
			env: sb.env(),
		});
		expect(result.error?.message).toBe('Not found: Scan 424242 not found. (item 0)');
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
