import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { FINAL_STATUSES } from '../../shared/scans/status';
import { toItems } from '../execution/items';
import type { Deferred, ExecutionScope } from '../execution/scope';
import { scanShape } from '../execution/toolAnswer';
import { waitSettings } from './pollSettings';
import { failedScanError, waitFailedError } from './waitErrors';

export interface HandOff {
	/** The scan as last read (the upload's creation object, or Get's first read). */
	scan: IDataObject;
	scanId: number;
	itemIndex: number;
	/** The operation's options collection: "Output" and the "Wait for Completion" settings. */
	options: IDataObject;
	/** Template of the scan, when known: lets the poller follow it through GET /scans. */
	templateId?: number;
}

/**
 * The one hand-off of a scan to "Wait for Completion" (Upload and Get): a scan already final
 * is output at once (a failed one fails its item); otherwise it joins the execution's poller
 * and the item's output comes `later`, when the scan is final.
 */
export function handOff(
	ctx: IExecuteFunctions,
	scope: Pick<ExecutionScope<unknown>, 'poller'>,
	{ scan, scanId, itemIndex, options, templateId }: HandOff,
): INodeExecutionData[] | Deferred {
	const shape = scanShape(ctx, options, itemIndex);
	if (FINAL_STATUSES.has(String(scan.status))) {
		if (scan.status === 'failed') throw failedScanError(ctx, scanId, scan, itemIndex);
		return toItems(shape(scan), itemIndex);
	}
	const later = scope.poller.wait({
		scanId,
		itemIndex,
		settings: waitSettings(options),
		templateId,
		initial: scan,
	});
	return {
		later: later.then(
			(final) => toItems(shape(final), itemIndex),
			(error: unknown) => {
				throw waitFailedError(ctx, error, scanId, itemIndex);
			},
		),
	};
}
