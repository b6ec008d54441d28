import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { templateOptions } from '../shared/templates';
import { properties } from './description';
import { pollScans } from './poll';

export class DocumentScanningPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Document Scanning Poll Trigger',
		name: 'documentScanningPollTrigger',
		icon: {
			light: 'file:../DocumentScanning/documentScanning.svg',
			dark: 'file:../DocumentScanning/documentScanning.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{ ($parameter["events"] || []).join(", ") }}',
		description:
			'Starts the workflow when a scan completes or fails, by polling (no public address needed)',
		defaults: { name: 'Document Scanning Poll Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'documentScanningApi', required: true }],
		properties,
	};

	methods = { loadOptions: { getTemplates: templateOptions(true) } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollScans.call(this);
	}
}
