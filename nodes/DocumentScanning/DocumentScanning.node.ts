import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as account from './actions/account';
import * as scan from './actions/scan';
import * as template from './actions/template';
import * as webhook from './actions/webhook';
import { router } from './actions/router';
import { toolProperties } from './actions/tool.descriptions';
import { BUILDER_HINT } from './builderHint';
import { searchTemplates } from '../shared/templates';

export class DocumentScanning implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document Scanning',
		name: 'documentScanning',
		icon: { light: 'file:documentScanning.svg', dark: 'file:documentScanning.dark.svg' },
		group: ['transform'],
		// 1.1: uploads carry the content fingerprint in their stored name by default.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Extract structured data from invoices, delivery notes and other documents',
		defaults: { name: 'Document Scanning' },
		usableAsTool: true,
		builderHint: BUILDER_HINT,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'documentScanningApi', required: true }],
		properties: [
			// Only in the AI tool form: what the model reads about the chosen operation.
			...toolProperties(),
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Account', value: 'account' },
					{ name: 'Scan', value: 'scan' },
					{ name: 'Template', value: 'template' },
					{ name: 'Webhook', value: 'webhook' },
				],
				default: 'scan',
			},
			...scan.description,
			...template.description,
			...account.description,
			...webhook.description,
		],
	};

	methods = { listSearch: { searchTemplates } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
