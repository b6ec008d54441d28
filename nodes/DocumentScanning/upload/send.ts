import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { apiRequest, httpStatusOf, isOutcomeUnknown } from '../../shared/transport';
import type { RequestPace } from '../../shared/pace';
import { pauseWithin } from '../../shared/pause';
import type { UploadFile } from './binary';
import { multipartBody } from './multipartBody';

/** Attempts of one upload when the service's answer does not arrive (the first one included). */
export const UPLOAD_ATTEMPTS = 3;
/** Pause before the second attempt; the third waits twice as long. */
const RESEND_PAUSE_MS = 1000;
/** Per-attempt timeout of the upload: a 20 MB file on a slow line. */
const UPLOAD_TIMEOUT_MS = 120_000;

export interface Sending {
	itemIndex: number;
	templateId: number;
	file: UploadFile;
	/** The name the service stores: the user's, or with the content fingerprint. */
	sentName: string;
	/** The execution's pace, through the limits gate: every POST waits for a place at the service. */
	pace?: RequestPace;
}

/** What became of one upload, as far as the answers tell. */
export type SendResult =
	/** 201: this upload made the scan (one credit). */
	| { kind: 'created'; scan: IDataObject }
	/**
	 * 409: the service has these bytes for this template (no credit for this attempt).
	 * `lostSince` (local time of the first attempt) is set when an earlier attempt got no answer:
	 * that attempt may have made the scan.
	 */
	| { kind: 'conflict'; error: unknown; at: number; lostSince?: number }
	/**
	 * No attempt got an answer that settles it: all were lost, or after a lost one the service
	 * refused the re-send (e.g. a 429). The first attempt may have made a scan.
	 */
	| { kind: 'lost'; failure: unknown; sentAt: number };

/**
 * Sends one file so that it is charged at most once: an answer that does not arrive (timeout,
 * dropped connection, 5xx) is followed by sending the file again, because the service refuses
 * the same file twice for one template (409) without charging: a second POST either makes the
 * scan or proves that one exists. A refusal of the first attempt (402, 404, 422, 429, …) is
 * thrown as the service's error; nothing was charged.
 */
export async function send(this: IExecuteFunctions, sending: Sending): Promise<SendResult> {
	const sentAt = Date.now();
	for (let attempt = 1; ; attempt++) {
		let failure: unknown;
		try {
			return { kind: 'created', scan: await post.call(this, sending) };
		} catch (error) {
			failure = error;
		}
		const resent = attempt > 1;
		// A 409 after a re-send or a followed redirect: the request before it may have made the scan.
		if (httpStatusOf(failure) === 409)
			return {
				kind: 'conflict',
				error: failure,
				at: Date.now(),
				lostSince: resent || isOutcomeUnknown(failure) ? sentAt : undefined,
			};
		if (!isOutcomeUnknown(failure)) {
			if (!resent) throw failure;
			return { kind: 'lost', failure, sentAt };
		}
		if (
			attempt >= UPLOAD_ATTEMPTS ||
			!(await pauseWithin(attempt * RESEND_PAUSE_MS, undefined, this.getExecutionCancelSignal?.()))
		)
			return { kind: 'lost', failure, sentAt };
	}
}

/** One POST /scans; the multipart body streams the file and is opened afresh per attempt. */
async function post(this: IExecuteFunctions, sending: Sending): Promise<IDataObject> {
	const { file } = sending;
	const body = multipartBody(
		{ template_id: String(sending.templateId) },
		{
			field: 'file',
			fileName: sending.sentName,
			mimeType: file.mimeType,
			size: file.size,
			open: file.open,
		},
	);
	const scan = await apiRequest.call(this, {
		method: 'POST',
		path: '/scans',
		body,
		itemIndex: sending.itemIndex,
		retry: false,
		// A 429 closes the batch's uploads (budget/gate.ts): no upload waits it out on its own.
		waitOutRateLimit: false,
		timeout: UPLOAD_TIMEOUT_MS,
		pace: sending.pace,
	});
	// Any 2xx (the spec shows only 201) says the upload was taken; one that names no scan leaves
	// the outcome unknown, as a lost answer does.
	if (Number.isSafeInteger(Number(scan.id)) && Number(scan.id) > 0) return scan;
	const message = `The service took the upload without naming the scan it made (item ${sending.itemIndex})`;
	const error = new NodeApiError(
		this.getNode(),
		{ message },
		{ message, itemIndex: sending.itemIndex },
	);
	error.context.outcomeUnknown = true;
	throw error;
}
