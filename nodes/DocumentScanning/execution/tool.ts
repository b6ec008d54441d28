import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { isPlainObject } from '../../shared/transport';
import { errorItem } from './items';

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
	if (change && ctx.getNodeParameter('allowChanges', 0, false) !== true)
		throw refusal(
			ctx,
			`Webhook → ${operation === 'create' ? 'Create' : 'Delete'} changes the account and is turned off for AI models`,
			'The workflow’s builder can turn on "Allow Changes to the Account" in this tool. No request was sent.',
		);
}

/**
 * One call as a tool. A failure is thrown (n8n's MCP Server Trigger answers `isError`), but in an
 * AI Agent's engine request (`rewireOutputLogTo`), where n8n 1.x would fail the whole execution
 * and 2.x drop the description, it is the answer `[{ error, description }]`.
 */
export async function toolCall(
	ctx: IExecuteFunctions,
	resource: string,
	operation: string,
	run: () => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	let items: INodeExecutionData[];
	try {
		refuseAsTool(ctx, resource, operation);
		items = await run();
	} catch (error) {
		const answer = errorItem(error, 0, true);
		if (ctx.getNode().rewireOutputLogTo === NodeConnectionTypes.AiTool) return [answer];
		const { error: message, description } = answer.json as { error: string; description?: string };
		const failure = new NodeOperationError(ctx.getNode(), message, { description });
		// Set after n8n's constructor (it swaps a text naming an error code), with the description
		failure.message = description ? `${message}\n\nDetails: ${description}` : message; // 2.x queue mode drops it
		throw failure;
	}
	if (resource !== 'webhook') return items;
	return items.map((item) => ({ ...item, json: withoutSecrets(item.json) }));
}

/** A record without fields named like a secret (`withheld` names them), URLs without query. */
function withoutSecrets(json: IDataObject): IDataObject {
	const withheld = Object.keys(json).filter((key) => /secret|signature|token|password/i.test(key));
	const safe: IDataObject = withheld.length > 0 ? { withheld } : {};
	for (const [key, value] of Object.entries(json)) {
		if (withheld.includes(key)) continue;
		if (key === 'url' && typeof value === 'string') safe[key] = value.replace(/[?#].*$/, '');
		else if (Array.isArray(value))
			safe[key] = value.map((entry) => (isPlainObject(entry) ? withoutSecrets(entry) : entry));
		else safe[key] = value;
	}
	return safe;
}
