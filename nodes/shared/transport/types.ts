import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import type { RequestPace } from '../pace';
import type { StreamBody } from './streamBody';

/** What a request to the Document Scanning API is made of, and what comes back. */

export const CREDENTIAL_TYPE = 'documentScanningApi';

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
	/**
	 * The execution's pace: each attempt waits for a place among the requests at the service,
	 * and its answer (time, status, or none) steers how many may go at once.
	 */
	pace?: RequestPace;
}

export interface ApiResponse {
	statusCode: number;
	headers: IDataObject;
	body: unknown;
}
