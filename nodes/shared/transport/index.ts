import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { pauseWithin } from '../pause';
import type { StreamBody } from '../../DocumentScanning/upload/multipartBody';
import { isStreamBody, withBody } from './streamBody';
import { isApiErrorBody, normalizeBaseUrl, WRONG_PREFIX_404 } from './baseUrl';
import { saysLastPage } from './listingReader';

/**
 * The one place that talks to the Document Scanning API.
 *
 * - resolves and checks the base URL of the credential;
 * - sends every request through n8n's `httpRequestWithAuthentication` (the credential's
 *   generic `authenticate` adds the key), asking for the full response so that status,
 *   headers and body are judged here;
 * - unwraps the response shapes the spec leaves open (bare or `{ data }`);
 * - retries safe requests (GET) on 5xx, timeouts and dropped connections, and honours a
 *   short `Retry-After` on 429;
 * - turns every failure into a `NodeApiError` worded for the user, with no secret in it.
 */

export const CREDENTIAL_TYPE = 'documentScanningApi';

/** Page size of GET /scans (spec: 25 entries per page). */
export const PAGE_SIZE = 25;

export type ApiContext =
	IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions | IPollFunctions;

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Path relative to the base URL, starting with a slash, e.g. `/scans/12`. */
	path: string;
	qs?: IDataObject;
	/**
	 * JSON object, a `FormData`, or a `StreamBody` (the multipart upload, streamed): a stream
	 * body is opened afresh for every attempt, so a retried request sends the same bytes.
	 */
	body?: IDataObject | FormData | StreamBody;
	/** Item the request is made for; named in errors. */
	itemIndex?: number;
	/** Retry on 5xx / network errors. Defaults to true for GET only. */
	retry?: boolean;
	/** Wait out a 429's Retry-After (at most 60 s) and send once more. Defaults to true. */
	waitOutRateLimit?: boolean;
	/** Per-attempt timeout in milliseconds. */
	timeout?: number;
	/** Statuses that are returned to the caller instead of thrown (e.g. 404 on delete). */
	passStatuses?: number[];
	/**
	 * Epoch ms after which the caller has no use for the answer (e.g. a Wait Timeout): each
	 * attempt's timeout is cut to the time left, and retry / Retry-After pauses end there.
	 */
	deadline?: number;
}

export interface ApiResponse {
	statusCode: number;
	headers: IDataObject;
	body: unknown;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const RETRY_DELAYS_MS = [300, 1_000, 3_000];
/** Longest Retry-After (seconds) a request waits for before giving up with the 429 error. */
const MAX_RETRY_AFTER_SECONDS = 60;
const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);

async function getBaseUrl(ctx: ApiContext): Promise<string> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	return normalizeBaseUrl(ctx.getNode(), credentials.baseUrl);
}

/** Sends one request and returns the full response; throws a user-worded NodeApiError. */
export async function apiRequestFull(this: ApiContext, request: ApiRequest): Promise<ApiResponse> {
	const baseURL = await getBaseUrl(this);
	const retry = request.retry ?? request.method === 'GET';
	const options: IHttpRequestOptions = {
		method: request.method,
		baseURL,
		url: request.path,
		qs: request.qs,
		body: request.body as IHttpRequestOptions['body'],
		headers: { Accept: 'application/json' },
		json: !(request.body instanceof FormData) && !isStreamBody(request.body),
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: request.timeout ?? DEFAULT_TIMEOUT_MS,
	};
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal?.() : undefined;
	// Pauses end at the deadline or on cancel; `false` means the pause was cut short.
	const pause = async (ms: number) => await pauseWithin(ms, request.deadline, signal);

	for (let attempt = 0; ; attempt++) {
		let response: ApiResponse;
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
			)) as ApiResponse;
		} catch (error) {
			if (retry && attempt < RETRY_DELAYS_MS.length && isTransientNetworkError(error)) {
				if (await pause(RETRY_DELAYS_MS[attempt])) continue;
			}
			throw networkError(this, error, baseURL, request);
		}

		const { statusCode } = response;
		if (statusCode >= 200 && statusCode < 300) return response;
		if (request.passStatuses?.includes(statusCode)) return response;

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
		throw apiError(this, response, request);
	}
}

/** Sends one request and returns the response body, unwrapped from a `{ data: {...} }` envelope. */
export async function apiRequest(this: ApiContext, request: ApiRequest): Promise<IDataObject> {
	const response = await apiRequestFull.call(this, request);
	return unwrapRecord(response.body);
}

// ---------------------------------------------------------------------------------------
// Response shapes (see "Where the spec says 'not shown'" in the README)
// ---------------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A single record comes bare or as `{ data: {...} }`. */
export function unwrapRecord(body: unknown): IDataObject {
	if (isPlainObject(body)) {
		if (isPlainObject(body.data) && body.id === undefined) return body.data;
		return body;
	}
	if (typeof body === 'string' && body.trim() !== '') {
		try {
			return unwrapRecord(JSON.parse(body));
		} catch {
			return { message: body };
		}
	}
	return {};
}

export interface ListPage {
	items: IDataObject[];
	meta?: IDataObject;
	links?: IDataObject;
}

/** A collection comes as a bare array or as `{ data: [...] }`, possibly with `meta` / `links`. */
export function unwrapList(body: unknown): ListPage {
	if (Array.isArray(body)) return { items: body as IDataObject[] };
	if (typeof body === 'string' && body.trim() !== '') {
		try {
			return unwrapList(JSON.parse(body));
		} catch {
			return { items: [] };
		}
	}
	if (isPlainObject(body)) {
		const inner = body.data;
		if (Array.isArray(inner)) {
			return {
				items: inner as IDataObject[],
				meta: isPlainObject(body.meta) ? body.meta : undefined,
				links: isPlainObject(body.links) ? body.links : undefined,
			};
		}
		// `{ data: { data: [...] } }` or `{ data: [...], ... }` nested once more.
		if (isPlainObject(inner)) return unwrapList(inner);
	}
	return { items: [] };
}

/** Returns true when `meta` / `links` say the page just read is the last one (the rule lives in listingReader.ts). */
export function isLastPage(page: ListPage, pageNumber: number): boolean {
	return saysLastPage(page, pageNumber, PAGE_SIZE);
}

/**
 * Reads a paginated listing from page 1 until a short or empty page, or until `meta` /
 * `links` say it ended, whichever comes first; stops early once `limit` items are read.
 * A server that ignores `page` (returns the same first record again) ends the listing too.
 */
export async function apiRequestAllItems(
	this: ApiContext,
	path: string,
	qs: IDataObject = {},
	limit?: number,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const results: IDataObject[] = [];
	let previousFirstId: unknown;
	for (let pageNumber = 1; ; pageNumber++) {
		const response = await apiRequestFull.call(this, {
			method: 'GET',
			path,
			qs: { ...qs, page: pageNumber },
			itemIndex,
		});
		const page = unwrapList(response.body);
		const firstId = page.items[0]?.id;
		if (pageNumber > 1 && firstId !== undefined && firstId === previousFirstId) break;
		previousFirstId = firstId;

		results.push(...page.items);
		if (limit !== undefined && results.length >= limit) return results.slice(0, limit);

		const pageSize = Number(page.meta?.per_page ?? PAGE_SIZE);
		if (page.items.length === 0 || page.items.length < pageSize) break;
		if (isLastPage(page, pageNumber)) break;
	}
	return results;
}

/** Reads a list endpoint without pagination (templates, webhooks, logs). */
export async function apiRequestList(
	this: ApiContext,
	request: ApiRequest,
): Promise<IDataObject[]> {
	const response = await apiRequestFull.call(this, request);
	return unwrapList(response.body).items;
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

const NETWORK_ERROR_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

/**
 * The network error code (ECONNRESET, ECONNABORTED, ...) of a failed request. n8n's request
 * helper wraps the client error in a NodeApiError that keeps the code as `httpCode` and the
 * original text in `messages`; plain errors carry `code`, possibly on a `cause`.
 */
function errorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && isPlainObjectLike(current); depth++) {
		const { code, httpCode, errorResponse } = current as {
			code?: unknown;
			httpCode?: unknown;
			errorResponse?: { code?: unknown };
		};
		for (const candidate of [code, httpCode, errorResponse?.code]) {
			if (typeof candidate === 'string' && /^E[A-Z_]+$/.test(candidate)) return candidate;
		}
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

function isPlainObjectLike(value: unknown): value is object {
	return typeof value === 'object' && value !== null;
}

function errorText(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	const { messages } = error as { messages?: unknown };
	return [error.message, ...(Array.isArray(messages) ? messages.map(String) : [])].join(' ');
}

/** A request that may or may not have reached the server: timeout, reset, hang-up. */
export function isTransientNetworkError(error: unknown): boolean {
	const code = errorCode(error);
	if (code && NETWORK_ERROR_CODES.has(code)) return true;
	return /socket hang up|timeout|ECONNRESET|network error/i.test(errorText(error));
}

/**
 * True when a failed request's outcome on the server is unknown: the connection dropped,
 * timed out, or the server answered 5xx. An upload that fails this way may have created
 * the scan, so it must not be repeated blindly.
 */
export function isOutcomeUnknown(error: unknown): boolean {
	if (error instanceof NodeApiError) {
		if (error.httpCode === null || error.httpCode === undefined) return true;
		return /^5\d\d$/.test(error.httpCode) || error.context?.outcomeUnknown === true;
	}
	return isTransientNetworkError(error);
}

export function httpStatusOf(error: unknown): number | undefined {
	if (error instanceof NodeApiError && error.httpCode) {
		const status = Number(error.httpCode);
		return Number.isFinite(status) ? status : undefined;
	}
	return undefined;
}

function retryAfterSeconds(headers: IDataObject): number | undefined {
	const raw = headers?.['retry-after'] ?? headers?.['Retry-After'];
	if (raw === undefined || raw === null || raw === '') return undefined;
	const seconds = Number(raw);
	if (Number.isFinite(seconds)) return Math.max(0, seconds);
	const date = Date.parse(String(raw));
	if (Number.isFinite(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
	return undefined;
}

function describeFields(errors: unknown): string[] {
	// `errors` is a map { field: [messages] | message } or a list of { field, message } / strings.
	if (Array.isArray(errors)) {
		return errors.map((entry) => {
			if (isPlainObject(entry)) {
				const field = entry.field ?? entry.name ?? entry.path ?? entry.param;
				const message = entry.message ?? entry.msg ?? entry.error ?? '';
				return field ? `${String(field)}: ${String(message)}`.trim() : String(message);
			}
			return String(entry);
		});
	}
	if (isPlainObject(errors)) {
		return Object.entries(errors).map(([field, messages]) => {
			const text = Array.isArray(messages)
				? messages.map(String).join(' ')
				: String(messages ?? '');
			return `${field}: ${text}`.trim();
		});
	}
	return [];
}

/** Names of the fields a 422 `errors` value blames (a map, or a list of `{ field }`). */
export function fieldNames(errors: unknown): string[] {
	if (Array.isArray(errors)) {
		return errors
			.map((entry) =>
				isPlainObject(entry) ? (entry.field ?? entry.name ?? entry.path) : undefined,
			)
			.filter((field): field is string => typeof field === 'string');
	}
	if (isPlainObject(errors)) return Object.keys(errors);
	return [];
}

function forItem(itemIndex: number | undefined): string {
	return itemIndex === undefined ? '' : ` (item ${itemIndex})`;
}

interface ErrorWording {
	message: string;
	description: string;
}

function wordingFor(
	status: number,
	body: IDataObject,
	headers: IDataObject,
	apiBody: boolean,
): ErrorWording {
	const serverMessage = String(body.message ?? body.error ?? '').trim();
	switch (status) {
		case 400:
			return {
				message: 'The API rejected the request as malformed',
				description: serverMessage || 'Check the parameters of the node.',
			};
		case 401:
			return {
				message: 'Authentication failed: the API key is missing or not valid',
				description:
					'Check the API key in the Document Scanning API credential, and whether the service expects it as "Authorization: Bearer" or as "X-API-Key".',
			};
		case 402:
			return {
				message: 'Not enough scan credit',
				description:
					'Each scan uses one credit and the account has none left. Top up the account in the application; failed scans return their credit automatically.',
			};
		case 403:
			return {
				message: 'This account has no API access',
				description:
					'API access is part of the "Business" package (from 2,000 scans). Upgrade the account in the application, or use an API key of an account that has it.',
			};
		case 404:
			if (!apiBody) return WRONG_PREFIX_404;
			return {
				message: `Not found${serverMessage ? `: ${serverMessage}` : ''}`,
				description:
					'Check the ID. Scans and webhooks are visible only to the account of the API key, and only active templates can be used.',
			};
		case 409:
			return {
				message: 'This file was already uploaded with this template',
				description:
					'The service refuses the same file twice for one template, so no credit was used. To get the existing scan instead of an error, set the option "If Already Uploaded" to "Return Existing Scan".',
			};
		case 422: {
			const fields = describeFields(body.errors);
			const names = fieldNames(body.errors);
			return {
				message: `The API rejected the request: invalid ${names.length ? names.join(', ') : 'parameters'}`,
				description:
					[serverMessage, ...fields].filter(Boolean).join('\n') ||
					'Check the parameters of the node.',
			};
		}
		case 429: {
			const retryAfter = retryAfterSeconds(headers);
			return {
				message: 'Rate limit reached: more than 200 scans in the last hour',
				description: `The limit counts uploads over a rolling hour, so retrying at once cannot help. ${
					retryAfter !== undefined
						? `The service asks to wait ${retryAfter} seconds.`
						: 'Try again later, or spread uploads over time (e.g. with a Wait or Loop Over Items node).'
				}`,
			};
		}
		default:
			if (status >= 500) {
				return {
					message: `The Document Scanning service had an internal error (HTTP ${status})`,
					description:
						'The request was retried where that is safe. Try again later; if it persists, contact the service.',
				};
			}
			return {
				message: `The API answered with HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`,
				description: 'Check the parameters of the node.',
			};
	}
}

function apiError(ctx: ApiContext, response: ApiResponse, request: ApiRequest): NodeApiError {
	const apiBody = isApiErrorBody(response.body);
	// A 404 page that is not the API's (e.g. HTML from the web server) is not repeated.
	const body = apiBody || response.statusCode !== 404 ? unwrapErrorBody(response.body) : {};
	const { message, description } = wordingFor(response.statusCode, body, response.headers, apiBody);
	// Only the status and the server's own error fields: never request headers or options.
	const safeBody: JsonObject = {
		httpCode: String(response.statusCode),
		error: (body.error as string) ?? null,
		message: (body.message as string) ?? null,
	};
	if (body.errors !== undefined) safeBody.errors = body.errors as JsonObject;
	const error = new NodeApiError(ctx.getNode(), safeBody, {
		message: `${message}${forItem(request.itemIndex)}`,
		description,
		httpCode: String(response.statusCode),
		itemIndex: request.itemIndex,
	});
	error.context.request = `${request.method} ${request.path}`;
	return error;
}

function unwrapErrorBody(body: unknown): IDataObject {
	const record = unwrapRecord(body);
	return isPlainObject(record) ? record : {};
}

function networkError(
	ctx: ApiContext,
	error: unknown,
	baseURL: string,
	request: ApiRequest,
): NodeApiError {
	const code = errorCode(error);
	const host = safeHost(baseURL);
	const timedOut =
		code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout/i.test(errorText(error));
	const message = timedOut
		? `The Document Scanning API at ${host} did not answer in time${forItem(request.itemIndex)}`
		: `Could not reach the Document Scanning API at ${host}${forItem(request.itemIndex)}`;
	const apiErr = new NodeApiError(
		ctx.getNode(),
		{ message },
		{
			message,
			// The code stays out of the message: NodeApiError would swap a message naming it for
			// its own generic text.
			description: `${code ? `Network error ${code}. ` : ''}Check the Base URL of the credential and that the service is reachable from n8n. Requests that are safe to repeat were retried.`,
			itemIndex: request.itemIndex,
		},
	);
	apiErr.httpCode = null;
	apiErr.context.outcomeUnknown = true;
	if (code) apiErr.context.code = code;
	apiErr.context.request = `${request.method} ${request.path}`;
	return apiErr;
}

function safeHost(baseURL: string): string {
	try {
		const url = new URL(baseURL);
		return `${url.protocol}//${url.host}`;
	} catch {
		return 'the configured Base URL';
	}
}
