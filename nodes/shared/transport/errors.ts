import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

/** What kind of failure a request met: a dropped connection, an unknown outcome, a status. */

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
export function errorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
		const { code, httpCode, errorResponse, cause } = current as IDataObject;
		for (const candidate of [code, httpCode, (errorResponse as IDataObject | undefined)?.code])
			if (typeof candidate === 'string' && /^E[A-Z_]+$/.test(candidate)) return candidate;
		current = cause;
	}
	return undefined;
}

export function errorText(error: unknown): string {
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
	const status = error instanceof NodeApiError && error.httpCode ? Number(error.httpCode) : NaN;
	return Number.isFinite(status) ? status : undefined;
}

export function retryAfterSeconds(headers: IDataObject): number | undefined {
	const raw = headers?.['retry-after'] ?? headers?.['Retry-After'];
	if (raw === undefined || raw === null || raw === '') return undefined;
	const seconds = Number(raw);
	if (Number.isFinite(seconds)) return Math.max(0, seconds);
	const date = Date.parse(String(raw));
	if (Number.isFinite(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
	return undefined;
}
