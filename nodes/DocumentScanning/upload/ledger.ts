/**
 * What one execution's uploads did, so that whatever stops it, its error names every scan it paid
 * for (file, scan ID, item) and every upload whose outcome is unknown, with advice that works.
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { httpStatusOf } from '../../shared/transport';
import { iso } from './budget/errors';
import type { Hold } from './budget/plan';
import { OutcomeUnknownError, plural } from './errors';

export interface CreatedScan {
	itemIndex: number;
	fileName: string;
	scanId: number;
	/** Its stored name carries the content fingerprint: a re-run with "Return Existing Scan" finds it. */
	fingerprinted: boolean;
}

export interface UncertainUpload extends Omit<CreatedScan, 'scanId'> {
	/** Scans that may hold the file; undefined when the listing could not be read. */
	candidates: number[] | undefined;
}

/** A limit (429 / 402) that stopped the uploads, and when a retry can succeed. */
export interface LimitStop {
	status: number;
	hold: Hold;
	/** Documents of the batch not uploaded, and when all of them fit (429; undefined: never, or unknown). */
	left: number;
	allFitAt?: number;
}

export class UploadLedger {
	private readonly created: CreatedScan[] = [];
	private readonly uncertain: UncertainUpload[] = [];

	recordScan(scan: CreatedScan): void {
		this.created.push(scan);
	}

	recordUncertain(upload: UncertainUpload): void {
		this.uncertain.push(upload);
	}

	/**
	 * The error that stops the node once something may have been charged, with the scans created
	 * and the uploads of unknown outcome added to its description and context.
	 */
	stopError(node: INode, error: unknown, limit: LimitStop | undefined): unknown {
		const stopped = error instanceof NodeApiError || error instanceof NodeOperationError;
		const ownItem = stopped ? (error.context.itemIndex as number | undefined) : undefined;
		const created = [...this.created].sort((a, b) => a.itemIndex - b.itemIndex);
		// The stopping item's own uncertain upload included: its scan may exist too.
		const uncertain = [...this.uncertain].sort((a, b) => a.itemIndex - b.itemIndex);
		if (!stopped || (created.length === 0 && uncertain.length === 0)) return error;

		let result: NodeApiError | NodeOperationError = error;
		const status = httpStatusOf(error);
		if (limit && (status === 429 || status === 402) && !(error instanceof OutcomeUnknownError)) {
			result = new NodeOperationError(
				node,
				`Item ${ownItem ?? '?'}: the service refused the upload (HTTP ${status}: ${error.message.replace(/ \(item \d+\)$/, '')}) after this execution got ${plural(created.length, 'scan')}; no further upload was sent`,
				{
					itemIndex: ownItem,
					description: `Another client of the account probably used the ${status === 402 ? 'remaining credit' : 'remaining hourly uploads'} after the node's check.${limitWhen(limit)}`,
				},
			);
		}
		const parts = [
			result.description ?? '',
			limit?.status === 429 ? allFitText(limit) : '',
			createdText(created),
			uncertainText(uncertain),
		];
		result.description = parts.filter((part) => part !== '').join(' ');
		Object.assign(result.context, {
			createdScans: created.map((scan): IDataObject => ({
				itemIndex: scan.itemIndex,
				fileName: scan.fileName,
				scanId: scan.scanId,
			})),
			...(uncertain.length === 0
				? {}
				: {
						uncertainUploads: uncertain.map((upload): IDataObject => ({
							itemIndex: upload.itemIndex,
							fileName: upload.fileName,
							candidateScanIds: upload.candidates ?? null,
						})),
					}),
		});
		return result;
	}
}

function limitWhen(limit: LimitStop): string {
	if (limit.hold.retryAfter !== undefined)
		return ` More uploads can succeed from ${iso(limit.hold.retryAfter)} (service time).`;
	return limit.hold.reason === 'credit' ? ' Top up the account before uploading the rest.' : '';
}

/** When a re-run of the batch fits whole (a batch that does not is refused before any upload). */
function allFitText({ left, allFitAt }: LimitStop): string {
	if (left === 0) return '';
	const when =
		allFitAt === undefined
			? ''
			: `All ${plural(left, 'document')} not uploaded fit from ${iso(allFitAt)} (service time), if no other upload comes in between. `;
	return `${when}To go on now, turn on Continue On Fail: the documents that fit are uploaded, the others come back as "not uploaded" items with their "retryAfter".`;
}

/** The scans an execution got before it stopped, and how to get them without paying again. */
function createdText(created: CreatedScan[]): string {
	if (created.length === 0) return 'This execution created no scan before it stopped.';
	const list = created.map(
		(scan) => `"${scan.fileName}" → scan ${scan.scanId} (item ${scan.itemIndex})`,
	);
	const exact = created.filter((scan) => !scan.fingerprinted);
	const advice =
		exact.length === 0
			? 'Run the batch again with "If Already Uploaded" set to "Return Existing Scan": these documents are then output from their scans without a new credit, and the others are uploaded.'
			: exact.length === created.length
				? "Get them with Scan → Get by these IDs, and leave these documents out when you run the batch again: they were uploaded under their exact names, without the content fingerprint by which the node finds a file's scan, so a re-run would refuse them (409)."
				: `Run the batch again with "If Already Uploaded" set to "Return Existing Scan", leaving out items ${exact.map((scan) => scan.itemIndex).join(', ')}: those were uploaded under their exact names, without the content fingerprint by which the node finds a file's scan; get their scans with Scan → Get by these IDs.`;
	return `Scans this execution created, file name → scan ID: ${list.join('; ')}. ${advice}`;
}

function uncertainText(uncertain: UncertainUpload[]): string {
	if (uncertain.length === 0) return '';
	const list = uncertain.map((upload) => {
		const found =
			upload.candidates === undefined
				? 'the listing could not be read'
				: upload.candidates.length === 0
					? 'no scan listed for it'
					: `maybe scan ${upload.candidates.join(' or ')}`;
		return `"${upload.fileName}" (item ${upload.itemIndex}: ${found}${upload.fingerprinted ? '' : '; check before uploading it again'})`;
	});
	return `Uploads whose answer was lost, so they may or may not have made a scan: ${list.join('; ')}.${
		uncertain.some((upload) => upload.fingerprinted)
			? ' A re-run with "Return Existing Scan" outputs the scan of those carrying the content fingerprint if one was made, and uploads them otherwise.'
			: ''
	}`;
}
