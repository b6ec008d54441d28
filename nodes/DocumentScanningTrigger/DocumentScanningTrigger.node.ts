import type { INodeType, INodeTypeDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

// Placeholder replaced by the trigger implementation.
export class DocumentScanningTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document Scanning Trigger',
		name: 'documentScanningTrigger',
		icon: { light: 'file:../DocumentScanning/documentScanning.svg', dark: 'file:../DocumentScanning/documentScanning.dark.svg' },
		group: ['trigger'],
		version: 1,
		description: 'Starts the workflow when a scan completes or fails',
		defaults: { name: 'Document Scanning Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'documentScanningApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [],
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return { workflowData: [[{ json: this.getBodyData() }]] };
	}
}
