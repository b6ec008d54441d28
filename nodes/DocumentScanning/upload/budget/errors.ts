import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Hold, HoldReason, Plan } from './plan';

/** Service time as ISO 8601 (UTC). */
export function iso(ms: number | undefined): string | null {
	return ms === undefined ? null : new Date(ms).toISOString();
}

export interface CreatedScan {
	itemIndex: number;
	fileName: string;
	scanId: unknown;
}

function plural(count: number, one: string, many = `${one}s`): string {
	return `${count} ${count === 1 ? one : many}`;
}

function shortage(plan: Plan, hourlyLimit: number): string[] {
	const parts: string[] = [];
	if (plan.slotsLeft < plan.documents) {
		parts.push(
			`${plural(plan.slotsLeft, 'upload')} of the ${hourlyLimit} per rolling hour ${plan.slotsLeft === 1 ? 'is' : 'are'} left (the next free up at ${iso(plan.nextSlotAt)}, service time)`,
		);
	}
	if (plan.credits !== undefined && plan.credits < plan.documents) {
		parts.push(`the account has ${plural(plan.credits, 'scan credit')} left`);
	}
	return parts;
}

/** Without Continue On Fail: the batch cannot go through whole, and nothing was sent. */
export function batchTooLargeError(
	node: INode,
	plan: Plan,
	hourlyLimit: number,
): NodeOperationError {
	const creditShort = plan.credits !== undefined && plan.credits < plan.documents;
	const later = creditShort
		? 'Top up the account in the application, or upload fewer documents.'
		: `All ${plan.documents} fit from ${iso(plan.allFitAt)} (service time), if no other upload comes in between.`;
	const error = new NodeOperationError(
		node,
		`The batch of ${plural(plan.documents, 'document')} cannot be uploaded whole: ${shortage(plan, hourlyLimit).join(', and ')}. No document was uploaded`,
		{
			description: `The node checks the account's credit and hourly uploads before the first upload, so nothing was sent and no credit was used. ${later} To upload the ${plural(plan.fits, 'document')} that fit now and get the others back as "not uploaded" items with a "retryAfter" time, turn on the node setting "On Error: Continue" (Continue On Fail).`,
		},
	);
	Object.assign(error.context, {
		notUploaded: true,
		documents: plan.documents,
		fits: plan.fits,
		hourlySlotsLeft: plan.slotsLeft,
		creditsLeft: plan.credits ?? null,
		retryAfter: creditShort ? null : iso(plan.nextSlotAt),
	});
	return error;
}

const REASON_TEXT: Record<HoldReason, string> = {
	hourlyLimit: 'the hourly upload limit',
	credit: 'the scan credit',
};

/** With Continue On Fail: one document the pre-check held back. */
export function heldBackError(
	node: INode,
	itemIndex: number,
	plan: Plan,
	hold: Hold,
	hourlyLimit: number,
): NodeOperationError {
	const left =
		hold.reason === 'credit'
			? `the account has ${plural(plan.credits ?? 0, 'scan credit')} left`
			: `${plural(plan.slotsLeft, 'upload')} of the ${hourlyLimit} per rolling hour ${plan.slotsLeft === 1 ? 'was' : 'were'} left`;
	const when =
		hold.retryAfter === undefined
			? 'Retry after topping up the account.'
			: `A retry can succeed from ${iso(hold.retryAfter)} (service time).`;
	return notUploaded(
		node,
		itemIndex,
		hold,
		`Item ${itemIndex}: not uploaded: ${REASON_TEXT[hold.reason]} is used up (${left} for ${plural(plan.documents, 'document')})`,
		`The node uploaded the ${plural(plan.fits, 'document')} that fit, in item order, and sent nothing for this one, so no credit was used. ${when}`,
	);
}

/** With Continue On Fail: one document not sent because an upload of this execution hit a limit. */
export function stoppedError(
	node: INode,
	itemIndex: number,
	hold: Hold,
	status: number,
): NodeOperationError {
	const when =
		hold.retryAfter === undefined
			? hold.reason === 'credit'
				? 'Retry after topping up the account.'
				: 'Retry in an hour at the latest.'
			: `A retry can succeed from ${iso(hold.retryAfter)} (service time).`;
	return notUploaded(
		node,
		itemIndex,
		hold,
		`Item ${itemIndex}: not uploaded: the service refused an upload of this execution (HTTP ${status}, ${REASON_TEXT[hold.reason]}), so the node sent no further upload`,
		`Another client of the account probably used the remaining ${hold.reason === 'credit' ? 'credit' : 'hourly uploads'} after the node's check. Nothing was sent for this item, so no credit was used. ${when}`,
	);
}

function notUploaded(
	node: INode,
	itemIndex: number,
	hold: Hold,
	message: string,
	description: string,
): NodeOperationError {
	const error = new NodeOperationError(node, message, { itemIndex, description });
	Object.assign(error.context, {
		notUploaded: true,
		reason: hold.reason,
		retryAfter: iso(hold.retryAfter),
	});
	return error;
}

/** Without Continue On Fail: a limit was hit anyway; names every scan the execution holds. */
export function limitHitError(
	node: INode,
	cause: Error,
	itemIndex: number,
	hold: Hold,
	status: number,
	created: CreatedScan[],
): NodeOperationError {
	const when =
		hold.retryAfter === undefined
			? hold.reason === 'credit'
				? 'Top up the account before uploading the rest.'
				: ''
			: `More uploads can succeed from ${iso(hold.retryAfter)} (service time).`;
	const scans = createdScansText(created);
	const error = new NodeOperationError(
		node,
		`Item ${itemIndex}: the service refused the upload (HTTP ${status}: ${cause.message.replace(/ \(item \d+\)$/, '')}) after this execution got ${plural(created.length, 'scan')}; no further upload was sent`,
		{
			itemIndex,
			description:
				`Another client of the account probably used the ${hold.reason === 'credit' ? 'remaining credit' : 'remaining hourly uploads'} after the node's check. ${scans} ${when}`.trim(),
		},
	);
	Object.assign(error.context, {
		notUploaded: true,
		reason: hold.reason,
		retryAfter: iso(hold.retryAfter),
		createdScans: createdScansContext(created),
	});
	return error;
}

/** The scans an execution got before it stopped, for an error's description. */
function createdScansText(created: CreatedScan[]): string {
	if (created.length === 0) return 'This execution created no scan before it stopped.';
	const list = created.map(
		(scan) => `"${scan.fileName}" → scan ${String(scan.scanId)} (item ${scan.itemIndex})`,
	);
	return `Scans this execution already has, file name → scan ID: ${list.join('; ')}. Get them with Scan → Get by these IDs, or run the batch again with "If Already Uploaded" set to "Return Existing Scan" (no credit is used for a file the service already has).`;
}

function createdScansContext(created: CreatedScan[]): IDataObject[] {
	return created.map((scan) => ({
		itemIndex: scan.itemIndex,
		fileName: scan.fileName,
		scanId: scan.scanId as number,
	}));
}

/**
 * The stop error when the limit refused a re-send after a lost answer: that item's own error
 * (its outcome is unknown, and it names the scans it may have created), plus the scans the
 * execution got, so nothing is reported as "not uploaded" that may have been.
 */
export function withCreatedScans(
	error: NodeOperationError,
	created: CreatedScan[],
): NodeOperationError {
	error.description = `${error.description ?? ''} ${createdScansText(created)}`.trim();
	error.context.createdScans = createdScansContext(created);
	return error;
}
