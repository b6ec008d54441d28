import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { eventRows } from '../shared/scans/output';
import { apiRequest, isPlainObject } from '../shared/transport';
import { deliveryKey } from './deliveryKey';
import { bodyText, rawBodyOf } from './rawBody';
import { firstReceivedAt, MAX_REMEMBERED, remember, repeatWindowSeconds } from './repeats';
import { replayProblem, replayToleranceSeconds } from './replay';
import { scanIdFromDelivery } from './scanId';
import { describeProblem, verifySignature } from './signature';
import { selectedEvents } from '../shared/events';
import { filterReason, type TriggerOptions } from '../shared/triggerOptions';
import type { StoredWebhook } from './webhookLifecycle';

/**
 * Handling of one delivery (`webhook()`): signature first, then repeats, the replay window,
 * the event and option filters, then the items. Between deliveries only the record of recent
 * delivery keys is kept, in the workflow's static data (repeats.ts).
 */

/**
 * Upper bound for `GET /scans/{id}` ("Include Full Scan"): one attempt, no retries, and a 429
 * is not waited out (whatever its Retry-After). The 200 has been sent and the service does not
 * redeliver, so until the execution starts the event lives only in this process; n8n starts it
 * only when this handler returns. Waiting up to 60 s would delay every such execution and risk
 * the event on a restart; the item carries fetchError instead (see docs/design.md, "Webhook trigger").
 */
export const FETCH_TIMEOUT_MS = 5_000;

/** Every answer is short JSON sent by the node itself: `{"received":true}` or `{"error":…}`. */
function respond(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

export async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject() as unknown as {
		rawBody?: unknown;
		readRawBody?: unknown;
		headers: IDataObject;
	};
	const staticData = this.getWorkflowStaticData('node');
	const stored = staticData as StoredWebhook;

	const rawBody = await rawBodyOf(request);
	const check = verifySignature(
		rawBody,
		request.headers['x-service-signature'],
		stored.webhookSecret,
	);
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
	// body some middleware may have parsed differently. A leading BOM is skipped (RFC 8259 §8.1).
	const rawText = bodyText(rawBody);
	let body: unknown;
	try {
		body = JSON.parse(rawText);
	} catch {
		body = undefined;
	}
	if (!isPlainObject(body)) {
		return respond(this, 400, {
			error: 'invalid_body',
			message: 'The delivery body is not a JSON object',
		});
	}

	// Only the signed body names the event; the unsigned X-Service-Event header never decides.
	if (typeof body.event !== 'string' || body.event === '') {
		return respond(this, 400, {
			error: 'missing_event',
			message: 'The signed delivery body names no event',
		});
	}
	const event = body.event;
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const tolerance = replayToleranceSeconds(options.replayTolerance);
	const now = Date.now();

	// A repeat of a delivery that started an execution: 200, so the service stops sending it,
	// and no second execution. Checked before the replay window, so a repeat of the same bytes
	// after it is answered 200 too (it is known), not 400.
	const key = deliveryKey(event, rawText, rawBody);
	const windowSeconds = repeatWindowSeconds(tolerance);
	const firstAt = firstReceivedAt(staticData, key, now, windowSeconds);
	if (firstAt !== undefined) {
		this.logger.debug(
			`Document Scanning Trigger: repeated delivery ${key} (first received ${new Date(firstAt).toISOString()}) answered 200, no execution started`,
		);
		return respond(this, 200, { received: true, duplicate: true });
	}

	const stale = replayProblem(body.timestamp, tolerance, now);
	if (stale !== undefined) {
		this.logger.debug(`Document Scanning Trigger: delivery refused (${stale})`);
		return respond(this, 400, { error: 'stale_delivery', message: stale });
	}

	const data = isPlainObject(body.data) ? body.data : {};
	const subscribed = selectedEvents(this.getNodeParameter('events', []));
	const ignored = filterReason(event, data, subscribed, options);
	if (ignored !== undefined) {
		return respond(this, 200, { received: true, ignored });
	}

	// Recorded before answering: n8n writes the static data back once this handler returns.
	const forgotten = remember(staticData, key, now, windowSeconds);
	if (forgotten > 0) {
		this.logger.warn(
			`Document Scanning Trigger: more than ${MAX_REMEMBERED} deliveries within ${windowSeconds} s; the ${forgotten} oldest keys were forgotten, so a repeat of them would start another execution (each item carries deliveryKey for n8n's Remove Duplicates node)`,
		);
	}

	// Answer the service now, before any fetch: its 10 s wait (and the failure count that
	// deactivates the webhook) must not depend on how fast GET /scans/{id} is.
	respond(this, 200, { received: true });

	let scan: IDataObject | undefined;
	let fetchError: string | undefined;
	if (options.includeFullScan) {
		const scanId = scanIdFromDelivery(rawText);
		if ('problem' in scanId) {
			fetchError = scanId.problem;
		} else {
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
	}

	let items: IDataObject[];
	if (options.splitIntoRows) {
		items = eventRows(scan ?? data, { event, timestamp: body.timestamp }, { deliveryKey: key });
		if (fetchError !== undefined) items = items.map((item) => ({ ...item, fetchError }));
	} else {
		const item: IDataObject = { ...body, deliveryKey: key };
		if (scan !== undefined) item.scan = scan;
		if (fetchError !== undefined) item.fetchError = fetchError;
		items = [item];
	}

	const workflowData: INodeExecutionData[][] = [items.map((json) => ({ json }))];
	return { noWebhookResponse: true, workflowData };
}
