import type {
	IHookFunctions,
	ILoadOptionsFunctions,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { apiRequestList } from '../shared/transport';
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
		version: 1,
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
		properties: [
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				options: [
					{
						name: 'Scan Completed',
						value: 'scan.completed',
						description: 'A scan was processed (status completed or validation_failed)',
					},
					{
						name: 'Scan Failed',
						value: 'scan.failed',
						description: 'Processing of a scan failed',
					},
				],
				default: ['scan.completed', 'scan.failed'],
				description: 'The events that start the workflow',
			},
			{
				displayName:
					'The service needs a public HTTPS address for this trigger. If n8n runs on localhost, set the WEBHOOK_URL environment variable to its public address. Without a public address, use the Document Scanning Poll Trigger instead.',
				name: 'webhookNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Include Full Scan',
						name: 'includeFullScan',
						type: 'boolean',
						default: false,
						description:
							'Whether to fetch the whole scan (with reviewed_data and error_message) and add it under "scan". If the fetch fails, the item carries "fetchError" instead.',
					},
					{
						displayName: 'Include Validation Failed',
						name: 'includeValidationFailed',
						type: 'boolean',
						default: true,
						description:
							'Whether "Scan Completed" also starts the workflow for scans with status validation_failed (data extracted, but a validation rule was violated)',
					},
					{
						displayName: 'Replay Tolerance (Seconds)',
						name: 'replayTolerance',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 300,
						description:
							"How far (in seconds) the signed timestamp of a delivery may lie from the n8n server's clock, in the past or the future. Deliveries outside it are refused, so a captured delivery cannot be sent again later. 0 turns the check off. The n8n server's clock must be right.",
					},
					{
						displayName: 'Split Into Table Rows',
						name: 'splitIntoRows',
						type: 'boolean',
						default: false,
						description:
							'Whether to output one item per table row (e.g. invoice line items) instead of one item per delivery. A scan without table rows gives one item with its fields.',
					},
					{
						displayName: 'Template Names or IDs',
						name: 'templateIds',
						type: 'multiOptions',
						typeOptions: { loadOptionsMethod: 'getTemplates' },
						default: [],
						description:
							'Only start the workflow for scans of these templates. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
				],
			},
		],
	};

	methods = {
		loadOptions: {
			async getTemplates(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const templates = await apiRequestList.call(this, { method: 'GET', path: '/templates' });
				return templates
					.map((template) => ({
						name: String(template.name ?? `Template ${String(template.id)}`),
						value: String(template.id),
					}))
					.sort((a, b) => a.name.localeCompare(b.name));
			},
		},
	};

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
