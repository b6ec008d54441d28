/**
 * What n8n's webhook server hands a trigger node and answers for it: the request with its raw
 * and parsed body (read at once, or on demand as n8n's rawBodyReader offers it), an
 * Express-like response, and the answer n8n gives when the node did not answer itself.
 */
import { type IncomingMessage, type ServerResponse } from 'node:http';

import type { IDataObject, IWebhookDescription, IWebhookResponseData } from 'n8n-workflow';

export interface IncomingMessageWithBody extends IncomingMessage {
	rawBody: Buffer;
	body: unknown;
	query: IDataObject;
	params: IDataObject;
}

/**
 * Parses a request the way n8n's webhook server does: the raw bytes are kept as `rawBody`,
 * JSON is parsed into `body`.
 */
export async function readRequest(req: IncomingMessage): Promise<IncomingMessageWithBody> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	const raw = Buffer.concat(chunks);
	const withBody = req as IncomingMessageWithBody;
	withBody.rawBody = raw;
	withBody.query = Object.fromEntries(new URL(req.url ?? '/', 'http://localhost').searchParams);
	withBody.params = {};
	const type = String(req.headers['content-type'] ?? '');
	try {
		withBody.body = type.includes('json') && raw.length ? JSON.parse(raw.toString('utf8')) : {};
	} catch {
		withBody.body = {};
	}
	return withBody;
}

interface ExpressLikeResponse extends ServerResponse {
	sentStatus?: number;
	sentBody?: unknown;
	status(code: number): ExpressLikeResponse;
	json(body: unknown): ExpressLikeResponse;
	send(body?: unknown): ExpressLikeResponse;
}

export function expressLikeResponse(res: ServerResponse): ExpressLikeResponse {
	const response = res as ExpressLikeResponse;
	response.status = (code: number) => {
		response.statusCode = code;
		response.sentStatus = code;
		return response;
	};
	response.json = (body: unknown) => {
		response.sentStatus = response.statusCode;
		response.sentBody = body;
		response.setHeader('Content-Type', 'application/json');
		response.end(JSON.stringify(body));
		return response;
	};
	response.send = (body?: unknown) => {
		response.sentStatus = response.statusCode;
		response.sentBody = body;
		if (typeof body === 'object' && body !== null && !Buffer.isBuffer(body))
			return response.json(body);
		response.end(body as string | Buffer | undefined);
		return response;
	};
	return response;
}

/**
 * A request as n8n's rawBodyReader middleware hands it over before any body parsing: no
 * `rawBody` yet, but `readRawBody()` reads the stream into `rawBody` on demand.
 */
export function lazyRequest(req: IncomingMessage): IncomingMessageWithBody {
	const lazy = req as IncomingMessageWithBody & { readRawBody(): Promise<void> };
	lazy.query = Object.fromEntries(new URL(req.url ?? '/', 'http://localhost').searchParams);
	lazy.params = {};
	lazy.body = {};
	lazy.readRawBody = async () => {
		if (lazy.rawBody) return;
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		lazy.rawBody = Buffer.concat(chunks);
	};
	return lazy;
}

/**
 * Starts a loopback HTTP server that hands every request to the trigger harness. With
 * `keepRawBody: false` it plays a webhook server that kept only the parsed body; with


/**
 * What n8n 1.123's webhook server answers (responseMode onReceived) when the node did not
 * answer itself: without workflowData `webhookResponse` or "Webhook call received"; with it
 * the description's `responseData`, which defaults to the literal text 'firstEntryJson'
 * (webhook-helpers.js + webhook-on-received-response-extractor.js); 'noData' is empty.
 */
export function onReceivedAnswer(
	description: IWebhookDescription | undefined,
	result: IWebhookResponseData,
): unknown {
	if (result.workflowData === undefined)
		return result.webhookResponse ?? { message: 'Webhook call received' };
	const responseData = description?.responseData ?? 'firstEntryJson';
	if (responseData === 'noData') return undefined;
	if (responseData) return responseData;
	return result.webhookResponse ?? { message: 'Workflow was started' };
}
