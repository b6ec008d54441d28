import type { IExecuteFunctions, INode } from 'n8n-workflow';

/**
 * The node as an AI tool. n8n offers every `usableAsTool` node in a second form whose type ends
 * in "Tool" (here `…documentScanningTool`): an AI Agent or the MCP Server Trigger calls it with
 * one input item built from the model's arguments.
 *
 * As a tool, a failing call is the tool's answer, not an exception: one `{ error, description,
 * … }` item, as with "Continue On Fail". An exception would fail the whole agent execution on
 * n8n 1.x, and on 2.x reach the model as its bare message; the model could not tell the user
 * what went wrong or what to do, nor try again with another argument.
 */
export function runsAsTool(node: Pick<INode, 'type'>): boolean {
	return node.type.endsWith('Tool');
}

/**
 * Whether a failing item gives its `{ error }` item and the others go on: with Continue On
 * Fail, and always as an AI tool.
 */
export function goesOnAfterFailure(ctx: IExecuteFunctions): boolean {
	return runsAsTool(ctx.getNode()) || ctx.continueOnFail();
}

/**
 * An error text as a tool call's answer: without the item references ("Item 0: …", "… (item
 * 0)") that help in a batch but mean nothing to a model, which made one call.
 */
export function toolText(text: string): string {
	return text
		.replace(/^Item \d+: /, '')
		.replace(/ \(item \d+\)(?=[.;:]?$)/, '')
		.replace(/ \(item \d+\)(?=;)/, '');
}
