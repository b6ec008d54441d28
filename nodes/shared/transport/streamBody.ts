import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import type { StreamBody } from '../../DocumentScanning/upload/multipartBody';

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
