import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as upload from './upload.operation';

export { get, getAll, upload };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['scan'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get a scan, optionally waiting until it is processed',
				action: 'Get a scan',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get many scans, newest first',
				action: 'Get many scans',
			},
			{
				name: 'Upload',
				value: 'upload',
				description: 'Upload a document to extract its data with a template (uses one scan credit)',
				action: 'Upload a document',
			},
		],
		default: 'upload',
	},
	...upload.description,
	...get.description,
	...getAll.description,
];
