import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { templateOptions } from '../shared/templates';
import { properties } from './description';
import { handleDelivery } from './delivery';
import { checkWebhookExists, createWebhook, deleteWebhook } from './webhookLifecycle';

export class DocumentScanningTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document Scanning Trigger',
		name: 'documentScanningTrigger',
		icon: {
			light: 'file:../DocumentScanning/documentScanning.svg',
			dark: 'file:../DocumentScanning/documentScanning.dark.svg',
		},
		group: ['trigger'],
		version: [1, 1.1],
		subtitle: '={{ ($parameter["events"] || []).join(", ") }}',
		description: 'Starts the workflow when a scan completes or fails',
		defaults: { name: 'Document Scanning Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'documentScanningApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties,
	};

	methods = { loadOptions: { getTemplates: templateOptions(false) } };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkWebhookExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await createWebhook.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteWebhook.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await handleDelivery.call(this);
	}
}
