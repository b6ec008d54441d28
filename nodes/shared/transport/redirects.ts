import type { IHttpRequestMethods } from 'n8n-workflow';

/** Redirects of one request the transport follows, at most. */
export const MAX_REDIRECTS = 5;

/** A redirect answer: the address to follow, or why it is refused; `location` never has a query. */
export interface Redirect {
	status: number;
	/** Where it pointed: origin and path (a query may hold a token). */
	location: string;
	follow?: string;
	refused?: string;
}

/**
 * The one redirect rule of every request (n8n's own following is off: it would send the key to
 * any address, and keep a streamed upload's every byte to send it again). A redirect is followed
 * only to the Base URL's origin (scheme, host and port: http to https is another origin too):
 * 307 and 308 keep the method and the body, 301, 302 and 303 only a GET (they would turn any
 * other request into a GET). Undefined when `status` is no redirect.
 */
export function redirectOf(
	baseUrl: string,
	requestUrl: string,
	method: IHttpRequestMethods,
	status: number,
	locationHeader: unknown,
): Redirect | undefined {
	if (![301, 302, 303, 307, 308].includes(status)) return undefined;
	const raw = Array.isArray(locationHeader) ? locationHeader[0] : locationHeader;
	const text = typeof raw === 'string' ? raw.trim() : '';
	const to = text !== '' && URL.canParse(text, requestUrl) ? new URL(text, requestUrl) : undefined;
	const location = to ? `${to.origin}${to.pathname}` : 'no usable address';
	const refused = !to
		? 'the answer names no usable address (Location header)'
		: to.origin !== new URL(baseUrl).origin
			? 'the new address is on another origin (scheme, host or port) than the Base URL, and the API key is sent only to the Base URL'
			: undefined;
	if (refused || !to) return { status, location, refused };
	if (status < 307 && method !== 'GET')
		return { status, location, refused: `a ${status} would turn the ${method} into a GET request` };
	return { status, location, follow: to.href };
}
