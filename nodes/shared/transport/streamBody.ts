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
