import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { apiRequest, httpStatusOf, isOutcomeUnknown } from '../../shared/transport';
import type { UploadFile } from './binary';
import { pauseWithin } from '../../shared/pause';
import type { ExecutionScope } from '../execution/scope';
import { findCandidates } from './candidates';
import type { FileRef } from './errors';
import { ambiguousScanError, unknownOutcomeError } from './errors';
import { existingScan } from './existingScan';
import { withFingerprint } from './fingerprint';
import { multipartBody } from './multipartBody';

/** Attempts of one upload when the service's answer does not arrive (the first one included). */
export const UPLOAD_ATTEMPTS = 3;
/** Pause before the second attempt; the third waits twice as long. */
const RESEND_PAUSE_MS = 1000;
/** Per-attempt timeout of the upload: a 20 MB file on a slow line. */
const UPLOAD_TIMEOUT_MS = 120_000;

export interface UploadRequest {
	templateId: number;
	file: UploadFile;
	itemIndex: number;
	returnExisting: boolean;
	scope: Pick<ExecutionScope, 'claimedScanIds' | 'uploadedFiles' | 'scanListings'> &
		Partial<Pick<ExecutionScope, 'pace'>>;
}

/**
 * The name the file is uploaded with: with "Return Existing Scan", the user's name with the
 * file's content fingerprint before the extension (`Invoice.ds-1a2b3c4d5e6f.pdf`), so that a
 * later 409 for these bytes leads provably to their scan; otherwise the user's name.
 */
export function sentNameOf(request: Pick<UploadRequest, 'file' | 'returnExisting'>): string {
	return request.returnExisting
		? withFingerprint(request.file.fileName, request.file.sha256)
		: request.file.fileName;
}

function fileKey(request: UploadRequest): string {
	return `${request.templateId}:${request.file.sha256}`;
}

/**
 * Uploads one file so that it is charged at most once and the item gets its own scan or an
 * error, never another document's scan:
 * - an answer that does not arrive (timeout, dropped connection, 5xx) is followed by sending
 *   the file again: the service refuses the same file twice for one template (409) without
 *   charging, so a second POST either creates the scan or proves an earlier one did;
 * - only after such a 409 the node looks for the scan, among the template's scans created
 *   after the first attempt was sent (server clock), with the file's name as the service may
 *   have stored it, not held by another item of this execution;
 * - a found scan is output only when it is the single candidate; otherwise the item fails
 *   with the candidate IDs;
 * - "Return Existing Scan" outputs, at any age, only the scan whose name carries the file's
 *   content fingerprint, found in one listing of the template shared by the execution.
 */
export async function sendUpload(
	this: IExecuteFunctions,
	request: UploadRequest,
): Promise<IDataObject> {
	const sentAt = Date.now();
	for (let attempt = 1; ; attempt++) {
		let failure: unknown;
		try {
			return claim(request, await post.call(this, request));
		} catch (error) {
			failure = error;
		}
		const resent = attempt > 1;
		if (httpStatusOf(failure) === 409)
			return await afterConflict.call(this, request, failure, resent ? sentAt : undefined);
		if (!resent && !isOutcomeUnknown(failure)) throw failure;
		if (
			!isOutcomeUnknown(failure) ||
			attempt >= UPLOAD_ATTEMPTS ||
			!(await pauseWithin(attempt * RESEND_PAUSE_MS, undefined, this.getExecutionCancelSignal?.()))
		) {
			throw unknownOutcomeError(
				this,
				refOf(request),
				failure,
				await recentOrUndefined.call(this, request, sentAt),
			);
		}
	}
}

/** One POST /scans; the multipart body streams the file and is opened afresh per attempt. */
async function post(this: IExecuteFunctions, request: UploadRequest): Promise<IDataObject> {
	const { file } = request;
	const body = multipartBody(
		{ template_id: String(request.templateId) },
		{
			field: 'file',
			fileName: sentNameOf(request),
			mimeType: file.mimeType,
			size: file.size,
			open: file.open,
		},
	);
	return await apiRequest.call(this, {
		method: 'POST',
		path: '/scans',
		body,
		itemIndex: request.itemIndex,
		retry: false,
		timeout: UPLOAD_TIMEOUT_MS,
		pace: request.scope.pace,
	});
}

/**
 * The service has this file for this template. `sentAt` is set when an earlier attempt of
 * this item got no answer: that attempt may have created the scan.
 */
async function afterConflict(
	this: IExecuteFunctions,
	request: UploadRequest,
	conflict: unknown,
	sentAt: number | undefined,
): Promise<IDataObject> {
	const conflictAt = Date.now();
	// Another item of this execution uploaded the very same bytes: that is the scan.
	const sibling = request.scope.uploadedFiles.get(fileKey(request));
	if (sibling) {
		if (request.returnExisting) return { ...sibling };
		throw withDescription(
			conflict,
			`Another item of this execution uploaded the same file as scan ${String(sibling.id)}. No credit was used for this item. To output that scan for this item too, set the option "If Already Uploaded" to "Return Existing Scan".`,
		);
	}
	if (sentAt !== undefined) {
		const recent = await findCandidates.call(this, { ...searchOf(request), sentAt });
		if (recent.length === 1) return claim(request, recent[0]);
		if (recent.length > 1) throw ambiguousScanError(this, refOf(request), recent, 'recovery');
		// None since the first attempt: the 409 is about an earlier upload of this file.
	}
	if (!request.returnExisting) throw conflict;
	const found = await existingScan.call(this, {
		...refOf(request),
		fileName: request.file.fileName,
		sentName: sentNameOf(request),
		sha256: request.file.sha256,
		listings: request.scope.scanListings,
		conflictAt,
		heldByOther: (scan) =>
			request.scope.claimedScanIds.has(Number(scan.id)) &&
			request.scope.uploadedFiles.get(fileKey(request))?.id !== scan.id,
	});
	return claim(request, found);
}

/** Candidates since `sentAt`, for an error message; undefined when the listing fails too. */
async function recentOrUndefined(
	this: IExecuteFunctions,
	request: UploadRequest,
	sentAt: number,
): Promise<IDataObject[] | undefined> {
	try {
		return await findCandidates.call(this, { ...searchOf(request), sentAt });
	} catch {
		return undefined;
	}
}

function claim(request: UploadRequest, scan: IDataObject): IDataObject {
	if (scan.id !== undefined) request.scope.claimedScanIds.add(Number(scan.id));
	request.scope.uploadedFiles.set(fileKey(request), scan);
	return scan;
}

function refOf(request: UploadRequest): FileRef {
	return {
		itemIndex: request.itemIndex,
		fileName: sentNameOf(request),
		templateId: request.templateId,
	};
}

function searchOf(request: UploadRequest) {
	return { ...refOf(request), claimed: request.scope.claimedScanIds };
}

function withDescription(error: unknown, description: string): unknown {
	if (error instanceof NodeApiError) error.description = description;
	return error;
}
