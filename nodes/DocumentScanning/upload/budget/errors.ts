import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { NotUploadedError, plural } from '../errors';
import type { Hold, HoldReason, Plan } from './plan';

/** Service time as ISO 8601 (UTC). */
export function iso(ms: number | undefined): string | null {
	return ms === undefined ? null : new Date(ms).toISOString();
}

/** What the check before the first upload left out of the count, for its messages. */
export interface NotCounted {
	/** Documents the service provably has already (their scans carry the file's fingerprint). */
	alreadyScanned: number;
	/** Items with the same file as an earlier item of the batch. */
	repeats: number;
}

function shortage(plan: Plan, hourlyLimit: number): string[] {
	const parts: string[] = [];
	if (plan.slotsLeft < plan.documents) {
		parts.push(
			`${plural(plan.slotsLeft, 'upload')} of the ${hourlyLimit} per rolling hour ${plan.slotsLeft === 1 ? 'is' : 'are'} left (the next free for certain at ${iso(plan.nextSlotAt)}, service time)`,
		);
	}
	if (plan.credits !== undefined && plan.credits < plan.documents) {
		parts.push(`the account has ${plural(plan.credits, 'scan credit')} left`);
	}
	return parts;
}

function needs(plan: Plan, notCounted: NotCounted): string {
	const skipped: string[] = [];
	if (notCounted.alreadyScanned > 0)
		skipped.push(`${notCounted.alreadyScanned} the service already has`);
	if (notCounted.repeats > 0)
		skipped.push(`${plural(notCounted.repeats, 'repeat')} of another item`);
	return skipped.length === 0
		? ''
		: ` (${plural(plan.documents, 'new upload')}: ${skipped.join(' and ')} need none)`;
}

/** Without Continue On Fail: the batch cannot go through whole, and nothing was sent. */
export function batchTooLargeError(
	node: INode,
	plan: Plan,
	hourlyLimit: number,
	documents: number,
	notCounted: NotCounted,
): NodeOperationError {
	const creditShort = plan.credits !== undefined && plan.credits < plan.documents;
	const later = creditShort
		? 'Top up the account in the application, or upload fewer documents.'
		: plan.allFitAt === undefined
			? `A batch that needs more than ${hourlyLimit} uploads never fits in one rolling hour: split it into batches of at most ${hourlyLimit}, or use Continue On Fail below and run it again hourly (with "If Already Uploaded" set to "Return Existing Scan", the documents already scanned take no upload).`
			: `All ${plan.documents} fit from ${iso(plan.allFitAt)} (service time), if no other upload comes in between.`;
	return new NodeOperationError(
		node,
		`The batch of ${plural(documents, 'document')}${needs(plan, notCounted)} cannot be uploaded whole: ${shortage(plan, hourlyLimit).join(', and ')}. No document was uploaded`,
		{
			description: `The node checks the account's credit and hourly uploads before the first upload, so nothing was sent and no credit was used. ${later} To upload the ${plural(plan.fits, 'document')} that fit now and get the others back as "not uploaded" items with a "retryAfter" time, turn on the node setting "On Error: Continue" (Continue On Fail).`,
		},
	);
}

const REASON_TEXT: Record<HoldReason, string> = {
	hourlyLimit: 'the hourly upload limit',
	credit: 'the scan credit',
};

function retryText(hold: Hold): string {
	if (hold.reason === 'credit') return 'Retry after topping up the account.';
	return hold.retryAfter === undefined
		? 'A retry can succeed once the documents held before it were uploaded and an hour has passed.'
		: `A retry can succeed from ${iso(hold.retryAfter)} (service time).`;
}

/** With Continue On Fail: one document the check before the first upload held back. */
export function heldBackError(
	node: INode,
	itemIndex: number,
	plan: Plan,
	hold: Hold,
	hourlyLimit: number,
): NotUploadedError {
	const left =
		hold.reason === 'credit'
			? `the account has ${plural(plan.credits ?? 0, 'scan credit')} left`
			: `${plural(plan.slotsLeft, 'upload')} of the ${hourlyLimit} per rolling hour ${plan.slotsLeft === 1 ? 'was' : 'were'} left`;
	return new NotUploadedError(
		node,
		`Item ${itemIndex}: not uploaded: ${REASON_TEXT[hold.reason]} is used up (${left} for ${plural(plan.documents, 'new upload')})`,
		{
			itemIndex,
			description: `The node uploaded the ${plural(plan.fits, 'document')} that fit, in item order, and sent nothing for this one, so no credit was used. ${retryText(hold)}`,
		},
		hold.reason,
		iso(hold.retryAfter),
	);
}

/** With Continue On Fail: one document not sent because an upload of this execution hit a limit. */
export function stoppedError(
	node: INode,
	itemIndex: number,
	hold: Hold,
	status: number,
): NotUploadedError {
	return new NotUploadedError(
		node,
		`Item ${itemIndex}: not uploaded: the service refused an upload of this execution (HTTP ${status}, ${REASON_TEXT[hold.reason]}), so the node sent no further upload`,
		{
			itemIndex,
			description: `Another client of the account probably used the remaining ${hold.reason === 'credit' ? 'credit' : 'hourly uploads'} after the node's check. Nothing was sent for this item, so no credit was used. ${retryText(hold)}`,
		},
		hold.reason,
		iso(hold.retryAfter),
	);
}

/** With Continue On Fail: the service refused this item's upload for a limit (429 / 402). */
export function refusedError(
	node: INode,
	itemIndex: number,
	cause: Error,
	hold: Hold,
	status: number,
	lookedFor: boolean,
): NotUploadedError {
	const said = (cause as { description?: string | null }).description;
	// "Return Existing Scan": the scans this execution read do not hold the file.
	const unknown = lookedFor
		? ' Whether the service has this file from an earlier upload is not known: none of the scans this execution read holds it, and the node read no more. A re-run with "Return Existing Scan" outputs that scan if there is one, and uploads the file otherwise.'
		: '';
	return new NotUploadedError(
		node,
		cause.message,
		{
			itemIndex,
			description: `${said ? `${said} ` : ''}The service refused the upload (HTTP ${status}), so no credit was used and the node sent no further upload in this execution. ${retryText(hold)}${unknown}`,
		},
		hold.reason,
		iso(hold.retryAfter),
		status,
	);
}

/** With Continue On Fail: the check of the limits failed, so no document of the batch was sent. */
export function limitsCheckError(node: INode, itemIndex: number, cause: unknown): NotUploadedError {
	const text = cause instanceof Error ? cause.message : String(cause);
	return new NotUploadedError(
		node,
		`Item ${itemIndex}: not uploaded: the check of the account's credit and hourly uploads failed: ${text}`,
		{
			itemIndex,
			description:
				"Before the first upload of a batch the node reads the account (GET /account) and the last hour's scans (GET /scans). That failed, so nothing was uploaded and no credit was used. Run the workflow again; the error above says what the service answered.",
		},
		'limitsCheck',
		null,
	);
}
