import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as account from './account';
import * as scan from './scan';
import * as template from './template';
import * as webhook from './webhook';
import type { DocumentScanningType } from './node.type';
import type { PhasedOperation } from '../execution/phases';
import { runPhases } from '../execution/phases';
import { defaultConcurrency, MAX_CONCURRENCY } from '../execution/scope';
import { runsAsTool, toolCall } from '../execution/tool';

// Every resource's operations; each keeps its own state for an execution.
const resources: Partial<
	Record<DocumentScanningType['resource'], Record<string, PhasedOperation<unknown>>>
> = {
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
 * Routes every input item to the chosen operation; `runPhases` checks all items first, sends the
 * requests at the execution's pace (at most "Concurrency" at once), then waits for scans in one
 * poller, keeping input order and, with "Continue On Fail", one `{ error }` item per failed item.
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

	const byDefault = defaultConcurrency(this.getNode().typeVersion);
	const concurrency = Math.min(
		MAX_CONCURRENCY,
		Number(this.getNodeParameter('options.concurrency', 0, byDefault)) || byDefault,
	);
	const run = async () => await runPhases.call(this, items.length, handler, concurrency);
	const asTool = runsAsTool(this.getNode());
	return [asTool ? await toolCall(this, resource, operation, run) : await run()];
}
