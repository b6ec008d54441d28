import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

/**
 * The body as n8n's HTTP client (axios) takes a Blob: it sends `stream()` chunk by chunk and
 * sets Content-Type and Content-Length from `type` and `size`. Nothing is held in memory.
 * (A Node `Readable` would do as well, but the package may import no module but `crypto`.)
 */
export interface StreamedBlob {
	readonly [Symbol.toStringTag]: 'Blob';
	readonly type: string;
	readonly size: number;
	stream(): AsyncGenerator<Buffer>;
}

/**
 * A request body that is produced as a stream and can be produced again: each `open()` gives
 * a fresh stream of the same bytes (a re-send after a lost answer, a retry after a 429).
 */
export interface StreamBody {
	contentType: string;
	/** Exact byte length; the request carries it as Content-Length. */
	contentLength: number;
	open(): Promise<StreamedBlob>;
}

/** A body built as a stream (the multipart upload): opened afresh for every attempt. */
export function isStreamBody(body: unknown): body is StreamBody {
	return (
		typeof body === 'object' && body !== null && typeof (body as StreamBody).open === 'function'
	);
}

/** Opens a stream body for one attempt: the stream, its Content-Type and Content-Length. */
export async function withBody(
	options: IHttpRequestOptions,
	body: unknown,
): Promise<IHttpRequestOptions> {
	if (!isStreamBody(body)) return options;
	const headers: IDataObject = { ...options.headers, 'Content-Type': body.contentType };
	headers['Content-Length'] = String(body.contentLength);
	return {
		...options,
		headers,
		body: (await body.open()) as unknown as IHttpRequestOptions['body'],
	};
}

/** Redirects of one streamed request the transport follows itself, at most. */
export const MAX_STREAM_REDIRECTS = 5;

export type StreamRedirect =
	{ follow: string } | { refuse: { status: number; location: string; reason: string } };

/**
 * A redirect answer to a streamed request (the upload). n8n's HTTP client is told not to follow
 * redirects for such a body, because its redirect layer (follow-redirects) keeps every byte
 * written so far to send it again: the whole file, per upload in flight. The transport follows
 * a 307 or 308 itself, by opening the body afresh, when the new address is on the same origin
 * (or the same host over https): the API key goes nowhere else. Any other redirect is refused
 * (301, 302 and 303 would turn the upload into a GET). Undefined when `status` is no redirect.
 */
export function streamRedirect(
	requestUrl: string,
	status: number,
	locationHeader: unknown,
): StreamRedirect | undefined {
	if (status < 300 || status > 399 || status === 304) return undefined;
	const raw = Array.isArray(locationHeader) ? locationHeader[0] : locationHeader;
	const from = new URL(requestUrl);
	let to: URL | undefined;
	try {
		to = typeof raw === 'string' && raw.trim() !== '' ? new URL(raw.trim(), from) : undefined;
	} catch {
		to = undefined;
	}
	const location = to ? `${to.protocol}//${to.host}${to.pathname}` : 'no usable address';
	const refuse = (reason: string) => ({ refuse: { status, location, reason } });
	if (!to) return refuse('the answer names no usable address (Location header)');
	if (status !== 307 && status !== 308)
		return refuse(`a ${status} would turn the upload into a GET request`);
	const sameOrigin = to.origin === from.origin;
	const upgrade =
		from.protocol === 'http:' && to.protocol === 'https:' && to.hostname === from.hostname;
	if (!sameOrigin && !upgrade)
		return refuse(
			'the new address is on another host, and the API key is sent only to the Base URL',
		);
	return { follow: to.href };
}
