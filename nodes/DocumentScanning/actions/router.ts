import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as account from './account';
import * as scan from './scan';
import * as template from './template';
import * as webhook from './webhook';
import type { DocumentScanningType } from './node.type';
import type { ExecutionScope } from '../helpers/utils';
import {
	asItemError,
	DEFAULT_CONCURRENCY,
	errorItem,
	mapWithConcurrency,
	MAX_CONCURRENCY,
} from '../helpers/utils';

type Operation = {
	execute: (
		this: IExecuteFunctions,
		itemIndex: number,
		scope: ExecutionScope,
	) => Promise<INodeExecutionData[]>;
};

// Every resource's operations.
const resources: Partial<Record<DocumentScanningType['resource'], Record<string, Operation>>> = {
	account: { get: account.get },
	scan: { upload: scan.upload, get: scan.get, getAll: scan.getAll },
	template: { getAll: template.getAll },
	webhook: {
		create: webhook.create,
		getAll: webhook.getAll,
		delete: webhook.delete,
		getLogs: webhook.getLogs,
	},
};

/**
 * Routes every input item to the operation chosen in the node, a bounded number at a time,
 * keeps the output in input order and, with "Continue On Fail", turns a failure into one
 * `{ error }` item paired to its input item.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as DocumentScanningType['resource'];
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = resources[resource]?.[operation];
	if (!handler) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" is not supported for the resource "${resource}"`,
		);
	}

	const concurrency = Math.min(
		MAX_CONCURRENCY,
		Number(this.getNodeParameter('options.concurrency', 0, DEFAULT_CONCURRENCY)) || DEFAULT_CONCURRENCY,
	);
	const continueOnFail = this.continueOnFail();
	const scope: ExecutionScope = { claimedScanIds: new Set<number>() };

	const perItem = await mapWithConcurrency(
		items.length,
		concurrency,
		async (itemIndex) => {
			try {
				return await handler.execute.call(this, itemIndex, scope);
			} catch (error) {
				if (continueOnFail) return [errorItem(error, itemIndex)];
				throw asItemError(this, error, itemIndex);
			}
		},
		!continueOnFail,
	);

	return [perItem.flat()];
}
