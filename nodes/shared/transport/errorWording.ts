import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { EXAMPLE, isApiErrorBody, WRONG_PREFIX_404 } from './baseUrl';
import { isJsonBody, isPlainObject, unwrapRecord } from './envelopes';
import { errorCode, errorText, retryAfterSeconds } from './errors';
import type { ApiContext, ApiRequest, ApiResponse } from './types';

/** The words of every failed request: a NodeApiError for the user, with no secret in it. */

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

export function forItem(itemIndex: number | undefined): string {
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

/**
 * The credential test's words for a refused GET /account. n8n's tester shows the message of the
 * rule for the status, else only the HTTP status text ("Unauthorized").
 */
export function credentialTestRules() {
	const rule = (value: number, message: string) => ({
		type: 'responseCode' as const,
		properties: { value, message },
	});
	return [
		...[401, 403, 404].map((value) => {
			const { message, description } = wordingFor(value, {}, {}, false);
			return rule(value, `${message}. ${description}`);
		}),
		// n8n follows no redirect in the credential test (it would send the key wherever one points).
		...[301, 302, 303, 307, 308].map((value) =>
			rule(
				value,
				`The service answered with a redirect (HTTP ${value}): the API key is sent only to the Base URL. Set the Base URL to the address the service moved to.`,
			),
		),
	];
}

/**
 * The error of an answer that is not 2xx, or is a page (a 2xx that is not JSON). A page (a web
 * app's, a proxy's) is never repeated; below 500 (but a 404: WRONG_PREFIX_404) it is worded as one.
 */
export function apiError(
	ctx: ApiContext,
	response: ApiResponse,
	request: ApiRequest,
): NodeApiError {
	const { statusCode: status } = response;
	const apiBody = isApiErrorBody(response.body);
	const json = isJsonBody(response.body);
	const page = !json && status !== 404 && status < 500;
	const body = apiBody || (json && status !== 404) ? unwrapRecord(response.body) : {};
	const done = status < 300 && request.method !== 'GET'; // a 2xx: the request may have been done
	const { message, description } = page
		? {
				message: `The service answered HTTP ${status} with a page that is not the API’s JSON`,
				description: `The page is not repeated here. Check that the Base URL of the credential ends in the API's version prefix (e.g. ${EXAMPLE}) and that no proxy answers for the service.${done ? ' The request may have been done: check before repeating it.' : ''}`,
			}
		: wordingFor(status, body, response.headers, apiBody);
	// Only the status and the server's own error fields: never request headers or options.
	const safeBody: JsonObject = {
		httpCode: String(status),
		error: (body.error as string) ?? null,
		message: (body.message as string) ?? null,
	};
	if (body.errors !== undefined) safeBody.errors = body.errors as JsonObject;
	const error = new NodeApiError(ctx.getNode(), safeBody, {
		message: `${message}${forItem(request.itemIndex)}`,
		description,
		httpCode: String(status),
		itemIndex: request.itemIndex,
	});
	error.context.request = `${request.method} ${request.path}`;
	if (done) error.context.outcomeUnknown = true;
	return error;
}

export function networkError(
	ctx: ApiContext,
	error: unknown,
	baseURL: string,
	request: ApiRequest,
): NodeApiError {
	const code = errorCode(error);
	// An AI model (the node's tool form) is not told where the service is.
	const origin = URL.canParse(baseURL) ? new URL(baseURL).origin : 'the configured Base URL';
	const at = ctx.getNode().type.endsWith('Tool') ? '' : ` at ${origin}`;
	const timedOut =
		code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout/i.test(errorText(error));
	const message = timedOut
		? `The Document Scanning API${at} did not answer in time${forItem(request.itemIndex)}`
		: `Could not reach the Document Scanning API${at}${forItem(request.itemIndex)}`;
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

/**
 * A redirect the transport does not follow. Any redirect of another request than a GET may come
 * after the service did it (Post/Redirect/Get points to the result): that outcome is unknown,
 * never "nothing was created".
 */
export function redirectError(
	ctx: ApiContext,
	reason: string,
	redirect: { status: number; location: string },
	request: ApiRequest,
): NodeApiError {
	// As for a network error, an AI model (the tool form) is not told where the service points.
	const to = ctx.getNode().type.endsWith('Tool') ? '' : ` to ${redirect.location}`;
	const message = `The service answered with a redirect (HTTP ${redirect.status})${to}${forItem(request.itemIndex)}`;
	const taken = request.method !== 'GET';
	const error = new NodeApiError(
		ctx.getNode(),
		{ httpCode: String(redirect.status), message },
		{
			message,
			description: `The request was not sent on: ${reason}. Set the credential's Base URL to the address the service moved to. ${taken ? 'The service may have done the request before it answered: check its result before repeating it.' : 'Nothing was created and no scan credit was used.'}`,
			httpCode: String(redirect.status),
			itemIndex: request.itemIndex,
		},
	);
	error.context.request = `${request.method} ${request.path}`;
	if (taken) error.context.outcomeUnknown = true;
	return error;
}
