import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { withOriginalName } from '../shared/scans/fileName';
import { eventRows } from '../shared/scans/output';
import { apiRequest, isPlainObject } from '../shared/transport';
import { deliveryKey } from './deliveryKey';
import { replayProblem, replayToleranceSeconds } from './replay';
import { scanIdFromDelivery } from './scanId';
import { describeProblem, verifySignature } from './signature';
import { selectedEvents } from '../shared/events';
import { filterReason, type TriggerOptions } from '../shared/triggerOptions';
import type { StoredWebhook } from './webhookLifecycle';

/**
 * Handling of one delivery (`webhook()`): the signature (the secret stored at activation), the
 * event and option filters, the replay window, then the items. A delivery only reads the
 * workflow's static data, never writes it (n8n writes it back whole after each request, without
 * a lock), and makes no request to the service before its signature is verified. Delivery is at
 * least once: every verified delivery inside the tolerance runs, carrying `deliveryKey`
 * (deliveryKey.ts), the same for each copy of one result; Remove Duplicates on it, or a unique
 * key at the sink, makes the effect happen once.
 */

/**
 * Upper bound for `GET /scans/{id}` ("Include Full Scan"): one attempt, no retries, a 429 not
 * waited out. The 200 is sent and n8n starts the execution only when this handler returns: a
 * long wait would delay it and risk the event on a restart; the item carries fetchError instead.
 */
export const FETCH_TIMEOUT_MS = 5_000;

/** Every answer is short JSON sent by the node itself: `{"received":true}` or `{"error":…}`. */
function respond(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

/**
 * The raw request bytes the signature covers. n8n's webhook server keeps them as
 * `req.rawBody`; where it has not read them yet, newer n8n offers `req.readRawBody()` (as
 * n8n's own Trello and Webhook nodes use it). The parsed `req.body` is never re-serialised.
 */
async function rawBodyOf(request: { rawBody?: unknown; readRawBody?: unknown }) {
	if (!Buffer.isBuffer(request.rawBody) && typeof request.readRawBody === 'function') {
		try {
			await (request.readRawBody as () => Promise<void>).call(request);
		} catch {
			// A body that cannot be read is treated like a missing one: 401, nothing starts.
			return undefined;
		}
	}
	return Buffer.isBuffer(request.rawBody) ? request.rawBody : undefined;
}

/**
 * The signed bytes as JSON (undefined when they are not), a leading UTF-8 byte order mark
 * skipped (RFC 8259 §8.1 lets a parser ignore it; the signature covers the bytes as sent).
 */
function signedJson(rawBody: Buffer): unknown {
	const text = rawBody.toString('utf8');
	try {
		return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
	} catch {
		return undefined;
	}
}

export async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject() as unknown as {
		rawBody?: unknown;
		readRawBody?: unknown;
		headers: IDataObject;
	};
	const { webhookSecret } = this.getWorkflowStaticData('node') as StoredWebhook;
	const rawBody = await rawBodyOf(request);
	const check = verifySignature(rawBody, request.headers['x-service-signature'], webhookSecret);
	if (!check.valid || rawBody === undefined) {
		this.logger.debug(
			`Document Scanning Trigger: delivery rejected (${check.problem ?? 'unknown'})`,
		);
		return respond(this, 401, {
			error: 'invalid_signature',
			message: describeProblem(check.problem),
		});
	}

	// The signed bytes are the source of truth: the item is built from them, not from a
	// body some middleware may have parsed differently.
	const body = signedJson(rawBody);
	if (!isPlainObject(body))
		return respond(this, 400, {
			error: 'invalid_body',
			message: 'The delivery body is not a JSON object',
		});

	// Only the signed body names the event; the unsigned X-Service-Event header never decides.
	if (typeof body.event !== 'string' || body.event === '')
		return respond(this, 400, {
			error: 'missing_event',
			message: 'The signed delivery body names no event',
		});
	const event = body.event;
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const tolerance = replayToleranceSeconds(options.replayTolerance, this.getNode().typeVersion);

	const scanId = scanIdFromDelivery(body);
	const data = isPlainObject(body.data) ? body.data : {};
	const subscribed = selectedEvents(this.getNodeParameter('events', []));
	const ignored = filterReason(event, data, subscribed, options);
	if (ignored !== undefined) return respond(this, 200, { received: true, ignored });

	// Late: never a failure at the service (it would cost the webhook), never silent.
	const late = replayProblem(body.timestamp, tolerance, Date.now());
	if (late !== undefined) {
		const scan = 'id' in scanId ? `scan ${scanId.id}` : 'a scan the delivery does not name';
		this.logger.warn(
			`Document Scanning Trigger: ${event} of ${scan} started no execution: ${late}. Read the scan with Document Scanning → Scan → Get, or the Poll Trigger.`,
		);
		return respond(this, 200, { received: true, late: true });
	}

	// Answer the service now, before any fetch: its 10 s wait (and the failure count that
	// deactivates the webhook) must not depend on how fast GET /scans/{id} is.
	respond(this, 200, { received: true });

	let scan: IDataObject | undefined;
	let fetchError = options.includeFullScan && 'problem' in scanId ? scanId.problem : undefined;
	if (options.includeFullScan && 'id' in scanId) {
		try {
			scan = await apiRequest.call(this, {
				method: 'GET',
				path: `/scans/${scanId.id}`,
				retry: false,
				waitOutRateLimit: false,
				timeout: FETCH_TIMEOUT_MS,
			});
		} catch (error) {
			fetchError = error instanceof Error ? error.message : String(error);
		}
	}

	const key = deliveryKey(event, body, 'id' in scanId ? scanId.id : undefined);
	let items: IDataObject[];
	if (options.splitIntoRows) {
		items = eventRows(scan ?? data, { event, timestamp: body.timestamp }, { deliveryKey: key });
		if (fetchError !== undefined) items = items.map((item) => ({ ...item, fetchError }));
	} else {
		const item: IDataObject = { ...withOriginalName(body), deliveryKey: key };
		if (isPlainObject(body.data)) item.data = withOriginalName(body.data);
		if (scan !== undefined) item.scan = withOriginalName(scan);
		if (fetchError !== undefined) item.fetchError = fetchError;
		items = [item];
	}

	return { noWebhookResponse: true, workflowData: [items.map((json) => ({ json }))] };
}
