import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { pauseWithin } from '../pause';
import { isStreamBody, withBody } from './streamBody';
import { MAX_REDIRECTS, redirectOf } from './redirects';
import { normalizeBaseUrl } from './baseUrl';
import { isJsonBody, unwrapList, unwrapRecord } from './envelopes';
import { isTransientNetworkError, retryAfterSeconds } from './errors';
import { apiError, networkError, redirectError } from './errorWording';
import type { ExecutionCredential } from '../pace';
import type { ApiContext, ApiRequest, ApiResponse } from './types';
import { CREDENTIAL_TYPE } from './types';

/**
 * The one place that talks to the Document Scanning API.
 *
 * - resolves and checks the base URL of the credential;
 * - sends every request through n8n's `httpRequestWithAuthentication` (the credential's
 *   `authenticate` adds the key), asking for the full response so that status, headers and
 *   body are judged here; with a pace, the credential is read once per execution;
 * - unwraps the response shapes the spec leaves open (bare or `{ data }`);
 * - retries safe requests (GET) on 5xx, timeouts and dropped connections, and honours a
 *   short `Retry-After` on 429;
 * - follows redirects itself, only to the Base URL's origin (redirects.ts: n8n's own is off);
 * - with a `pace` (the execution's window of requests at the service), waits for a place
 *   before each attempt and tells the pace how the attempt ended;
 * - turns every failure into a `NodeApiError` worded for the user, with no secret in it.
 */

const DEFAULT_TIMEOUT_MS = 60_000;
const RETRY_DELAYS_MS = [300, 1_000, 3_000];
/** Longest Retry-After (seconds) a request waits for before giving up with the 429 error. */
const MAX_RETRY_AFTER_SECONDS = 60;
const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);

/** The credential and its checked base URL (with a pace: read once for the execution). */
async function readCredential(ctx: ApiContext): Promise<ExecutionCredential> {
	const data = await ctx.getCredentials(CREDENTIAL_TYPE);
	const node = ctx.getNode();
	const saved = node.credentials?.[CREDENTIAL_TYPE];
	return {
		baseUrl: normalizeBaseUrl(node, data.baseUrl),
		decrypted: { id: saved?.id ?? '', name: saved?.name ?? '', type: CREDENTIAL_TYPE, data },
	};
}

/** Sends one request and returns the full response; throws a user-worded NodeApiError. */
export async function apiRequestFull(this: ApiContext, request: ApiRequest): Promise<ApiResponse> {
	// With the execution's pace, the credential is read once per execution, not per request:
	// n8n's authenticated request takes it as read (its `credentialsDecrypted` option).
	const credential = request.pace
		? await (request.pace.credential ??= readCredential(this))
		: undefined;
	const baseURL = credential?.baseUrl ?? (await readCredential(this)).baseUrl;
	const retry = request.retry ?? request.method === 'GET';
	const options: IHttpRequestOptions = {
		method: request.method,
		baseURL,
		url: request.path,
		qs: request.qs,
		body: request.body as IHttpRequestOptions['body'],
		headers: { Accept: 'application/json' },
		json: !(request.body instanceof FormData) && !isStreamBody(request.body),
		disableFollowRedirect: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: request.timeout ?? DEFAULT_TIMEOUT_MS,
	};
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal?.() : undefined;
	// Pauses end at the deadline or on cancel; `false` means the pause was cut short.
	const pause = async (ms: number) => await pauseWithin(ms, request.deadline, signal);

	let redirects = 0;
	for (let attempt = 0; ; attempt++) {
		let response: ApiResponse;
		const slot = await request.pace?.acquire();
		const began = Date.now();
		try {
			if (request.deadline !== undefined) {
				options.timeout = Math.max(
					1,
					Math.min(request.timeout ?? DEFAULT_TIMEOUT_MS, request.deadline - Date.now()),
				);
			}
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				await withBody({ ...options, headers: { ...options.headers } }, request.body),
				credential && { credentialsDecrypted: credential.decrypted },
			)) as ApiResponse;
		} catch (error) {
			// A request cut by its own deadline says nothing about the service.
			const cut = request.deadline !== undefined && Date.now() >= request.deadline - 50;
			if (isTransientNetworkError(error) && !cut)
				slot?.done({ kind: paceKind(request), ms: Date.now() - began, lost: true });
			else slot?.release();
			if (retry && attempt < RETRY_DELAYS_MS.length && isTransientNetworkError(error)) {
				if (await pause(RETRY_DELAYS_MS[attempt])) continue;
			}
			throw networkError(this, error, baseURL, request);
		}

		const { statusCode } = response;
		slot?.done({ kind: paceKind(request), ms: Date.now() - began, status: statusCode });
		// A 2xx page (a web app's, a proxy's) is never data, nor is an empty answer to a read: an
		// error, without its text.
		const { body } = response;
		const empty =
			request.method === 'GET' &&
			(body == null || (typeof body === 'string' && body.trim() === ''));
		if (statusCode >= 200 && statusCode < 300 && (empty || !isJsonBody(response.body)))
			throw apiError(this, response, request);
		if (statusCode >= 200 && statusCode < 300) return response;
		if (request.passStatuses?.includes(statusCode)) return response;

		const redirect = redirectOf(
			baseURL,
			requestUrl(options),
			request.method,
			statusCode,
			response.headers?.location,
		);
		if (redirect?.follow && redirects < MAX_REDIRECTS) {
			redirects++;
			attempt--;
			Object.assign(options, { baseURL: undefined, url: redirect.follow, qs: undefined });
			continue;
		}
		if (redirect)
			throw redirectError(
				this,
				redirect.refused ?? `more than ${MAX_REDIRECTS} redirects`,
				redirect,
				request,
			);

		if (statusCode === 429 && attempt === 0 && request.waitOutRateLimit !== false) {
			const waitSeconds = retryAfterSeconds(response.headers);
			// The server refused the request, so repeating it cannot charge twice.
			if (waitSeconds !== undefined && waitSeconds <= MAX_RETRY_AFTER_SECONDS) {
				if (await pause(waitSeconds * 1000)) continue;
			}
		}
		if (retry && RETRYABLE_STATUSES.has(statusCode) && attempt < RETRY_DELAYS_MS.length) {
			if (await pause(RETRY_DELAYS_MS[attempt])) continue;
		}
		const error = apiError(this, response, request);
		// An answer after a followed redirect of a POST or DELETE: the request may have been done before.
		if (redirects > 0 && request.method !== 'GET') error.context.outcomeUnknown = true;
		throw error;
	}
}

/**
 * Requests the pace compares with each other: method and path with IDs left out, and for a
 * streamed body its size class (a power of two), so a large upload is not judged by a small one.
 */
export function paceKind(request: ApiRequest): string {
	const path = request.path.replace(/\/\d+(?=\/|$)/g, '/{id}');
	const size = isStreamBody(request.body)
		? ` ${Math.ceil(Math.log2(Math.max(1, request.body.contentLength)))}`
		: '';
	return `${request.method} ${path}${size}`;
}

/** The address a request goes to (without its query): the base URL and path, or a followed redirect. */
function requestUrl(options: IHttpRequestOptions): string {
	return options.baseURL ? `${options.baseURL}${options.url}` : options.url;
}

/** Sends one request and returns the response body, unwrapped from a `{ data: {...} }` envelope. */
export async function apiRequest(this: ApiContext, request: ApiRequest): Promise<IDataObject> {
	const response = await apiRequestFull.call(this, request);
	return unwrapRecord(response.body);
}

/** Reads a list endpoint without pagination (templates, webhooks, logs). */
export async function apiRequestList(
	this: ApiContext,
	request: ApiRequest,
): Promise<IDataObject[]> {
	const response = await apiRequestFull.call(this, request);
	return unwrapList(response.body).items;
}
