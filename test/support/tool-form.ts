/**
 * The AI tool form of a `usableAsTool` node, built the way n8n's CLI builds it when it loads a
 * package (n8n 1.123 / 2.40): the type name gets "Tool", the display name " Tool", no main input,
 * one `ai_tool` output. n8n adds its own "Tool Description" parameters only to a node without a
 * `toolDescription` property; the action node has one per operation, so the properties stay.
 */
import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

export function toolForm(nodeType: INodeType): INodeType {
	const base = nodeType.description;
	if (!base.usableAsTool) throw new Error(`${base.name} is not usable as a tool`);
	if (!base.properties.some((p) => p.name === 'toolDescription'))
		throw new Error(`${base.name} has no toolDescription: n8n would add its own`);
	const description: INodeTypeDescription = {
		...base,
		name: `${base.name}Tool`,
		displayName: `${base.displayName} Tool`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
		usableAsTool: undefined,
	};
	const form = Object.create(nodeType) as INodeType;
	Object.defineProperty(form, 'description', { value: description });
	return form;
}
