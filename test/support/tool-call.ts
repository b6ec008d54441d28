/**
 * Calls the action node's tool form (test/support/tool-form.ts) the two ways n8n calls a tool,
 * through n8n-core's `WorkflowExecute` against the sandbox, and returns what the model (or the MCP
 * client) gets:
 *
 * - `mcp`: the way n8n's MCP Server Trigger (and an AI Agent before version 3) calls it. A client
 *   node asks n8n-core for its tools (`getInputConnectionData`, which builds each with
 *   `createNodeAsTool`: name, description, zod schema from the `$fromAI` calls) and invokes one.
 *   A thrown error becomes `{ isError: true, text: "Error: <message>" }`, as n8n 1.123's
 *   MCP server words it (2.40: "<error name>: <message>", also `isError`).
 * - `agent`: the way the AI Agent from version 3 calls it: the client node answers with an engine
 *   request naming the tool node; n8n-core runs that node (`rewireOutputLogTo: ai_tool`) and
 *   resumes the client with its run data, from which the client reads what n8n's agent gives the
 *   model: the JSON of the tool's items, or `{ error }` when the tool node failed. Whether the
 *   execution failed is `executionError` (n8n-core 2.11 stops an execution whose tool threw, as
 *   1.123 does).
 */
import type {
	EngineRequest,
	EngineResponse,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IRun,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers } from 'n8n-workflow';
import { zodToJsonSchema } from 'zod-to-json-schema';

import type { TestEnvironment } from './credentials';
import { ACTION_TOOL_TYPE, CREDENTIAL_TYPE, loadPackage } from './package';
import { runFromManualTrigger } from './run-node';

const CLIENT_TYPE = 'test.toolClient';

export type ToolPath = 'mcp' | 'agent';

/** What n8n gives the model about a tool: its name, description and JSON schema. */
export interface OfferedTool {
	name: string;
	description: string;
	schema: IDataObject;
}

export interface ToolCallResult {
	/** The tool as the model sees it (`mcp` only: the agent's tools are built the same way). */
	offered?: OfferedTool;
	/** The text the model or MCP client gets back. */
	text: string;
	/** Whether an MCP client sees the call as failed (`mcp`). */
	isError: boolean;
	/** `text` as JSON, when it is JSON. */
	json: unknown;
	/** The execution's error, when it failed as a whole. */
	executionError?: string;
	/** The tool node's own run data (input and output as n8n logs them). */
	run: IRun;
}

export interface ToolCallOptions {
	path: ToolPath;
	/** The tool node's parameters, as saved (e.g. `scanId: "={{ $fromAI('scanId', …) }}"`). */
	parameters: INodeParameters;
	/** The model's arguments. */
	args: IDataObject;
	env: TestEnvironment;
	/** The node version saved in the workflow; 1.1 (what new tool nodes get) by default. */
	typeVersion?: number;
	/** The tool's name for the model is the node's name (spaces become `_`). */
	nodeName?: string;
}

/** The stand-in for n8n's MCP Server Trigger or AI Agent: see the module comment. */
class ToolClient implements INodeType {
	description = {
		displayName: 'Tool client',
		name: 'toolClient',
		group: ['transform'],
		version: 1,
		description: 'Calls the tool connected to it, as n8n’s MCP Server Trigger or AI Agent',
		defaults: { name: 'Client' },
		inputs: [NodeConnectionTypes.Main, { type: NodeConnectionTypes.AiTool, required: true }],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	} as unknown as INodeTypeDescription;

	async execute(
		this: IExecuteFunctions,
		response?: EngineResponse,
	): Promise<INodeExecutionData[][] | EngineRequest> {
		const { path, args, toolNode } = this.getInputData()[0].json as {
			path: ToolPath;
			args: IDataObject;
			toolNode: string;
		};
		if (path === 'mcp') {
			const [tool] = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as Array<{
				name: string;
				description: string;
				schema: Parameters<typeof zodToJsonSchema>[0];
				invoke: (input: IDataObject) => Promise<unknown>;
			}>;
			const offered = {
				name: tool.name,
				description: tool.description,
				schema: zodToJsonSchema(tool.schema) as IDataObject,
			};
			try {
				const result = await tool.invoke(args);
				return [[{ json: { offered, isError: false, text: String(result) } }]];
			} catch (error) {
				return [[{ json: { offered, isError: true, text: `Error: ${(error as Error).message}` } }]];
			}
		}
		if (!response?.actionResponses?.length) {
			return {
				actions: [
					{
						actionType: 'ExecutionNodeAction',
						nodeName: toolNode,
						input: args,
						type: NodeConnectionTypes.AiTool,
						id: 'call_1',
						metadata: { itemIndex: 0 },
					},
				],
				metadata: {},
			} as EngineRequest;
		}
		const data = response.actionResponses[0].data;
		const items = data.data?.[NodeConnectionTypes.AiTool]?.[0]?.map((item) => item.json);
		const text = items?.length
			? JSON.stringify(items)
			: JSON.stringify({ error: data.error?.message ?? 'Unknown error' });
		return [[{ json: { isError: false, text } }]];
	}
}

export async function callTool(options: ToolCallOptions): Promise<ToolCallResult> {
	const loaded = await loadPackage();
	const client = new ToolClient();
	const nodeTypes: INodeTypes = {
		getByName: (type) => (type === CLIENT_TYPE ? client : loaded.nodeTypes.getByName(type)),
		getByNameAndVersion: (type, version) =>
			type === CLIENT_TYPE ? client : loaded.nodeTypes.getByNameAndVersion(type, version),
		getKnownTypes: () => ({}),
	};
	const toolNode = options.nodeName ?? 'Document Scanning';
	const toolType = loaded.nodeTypes.getByNameAndVersion(
		ACTION_TOOL_TYPE,
		options.typeVersion ?? 1.1,
	) as INodeType;
	const node: INode = {
		id: 'tool',
		name: toolNode,
		type: ACTION_TOOL_TYPE,
		typeVersion: options.typeVersion ?? 1.1,
		position: [200, 200],
		parameters: options.parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: '1', name: 'Document Scanning account' } },
	};
	// As n8n's editor saves a node and its Workflow reads it: the parameters with their defaults.
	node.parameters = NodeHelpers.getNodeParameters(
		toolType.description.properties,
		options.parameters,
		true,
		false,
		node,
		toolType.description,
	)!;
	const clientNode: INode = {
		id: 'client',
		name: 'Client',
		type: CLIENT_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	const { run } = await runFromManualTrigger({
		id: 'tool',
		nodes: [clientNode, node],
		connections: {
			'Manual Trigger': { main: [[{ node: 'Client', type: NodeConnectionTypes.Main, index: 0 }]] },
			[toolNode]: { ai_tool: [[{ node: 'Client', type: NodeConnectionTypes.AiTool, index: 0 }]] },
		},
		nodeTypes,
		items: [{ json: { path: options.path, args: options.args, toolNode } }],
		env: options.env,
	});
	const out = run.data.resultData.runData.Client?.at(-1)?.data?.main?.[0]?.[0]?.json as
		{ offered?: OfferedTool; text: string; isError: boolean } | undefined;
	const text = out?.text ?? '';
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return {
		offered: out?.offered,
		text,
		isError: out?.isError ?? false,
		json,
		executionError: run.data.resultData.error?.message,
		run,
	};
}
