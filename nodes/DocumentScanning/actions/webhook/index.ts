import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as del from './delete.operation';
import * as getAll from './getAll.operation';
import * as getLogs from './getLogs.operation';

export { create, del as delete, getAll, getLogs };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhook'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Register a URL that receives scan events (outputs the signing secret once)',
				action: 'Create a webhook',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a webhook',
				action: 'Delete a webhook',
			},
			{
				name: 'Get Logs',
				value: 'getLogs',
				description: 'Get the delivery log of a webhook, newest first',
				action: 'Get the delivery logs of a webhook',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get the webhooks of the account',
				action: 'Get many webhooks',
			},
		],
		default: 'create',
	},
	...create.description,
	...del.description,
	...getAll.description,
	...getLogs.description,
];
