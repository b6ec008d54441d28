import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { withOriginalName } from '../shared/scans/fileName';
import { eventRows } from '../shared/scans/output';
import { apiRequest, isPlainObject } from '../shared/transport';
import { deliveryKey } from './deliveryKey';
import { keysAtService, SEAL_PARAMETER } from './keyCarrier';
import { bodyText, rawBodyOf } from './rawBody';
import {
	firstReceivedAt,
	forgottenUpTo,
	MAX_REMEMBERED,
	remember,
	repeatWindowSeconds,
} from './repeats';
import { parseTimestamp, replayProblem, replayToleranceSeconds } from './replay';
import { scanIdFromDelivery } from './scanId';
import { describeProblem, verifySignature } from './signature';
import { selectedEvents } from '../shared/events';
import { filterReason, type TriggerOptions } from '../shared/triggerOptions';
import type { StoredWebhook } from './webhookLifecycle';

/**
 * Handling of one delivery (`webhook()`): signature first (the stored secret, else the one the
 * service's key carrier holds), then repeats, the event and option filters, the replay window,
 * then the items. Between deliveries only the record of recent delivery keys is kept, in the
 * workflow's static data (repeats.ts).
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

export async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	// The key carrier's own deliveries (keyCarrier.ts) start nothing.
	if ((this.getQueryData() as IDataObject)[SEAL_PARAMETER] !== undefined)
		return respond(this, 200, { received: true, ignored: 'the key carrier starts nothing' });
	const request = this.getRequestObject() as unknown as {
		rawBody?: unknown;
		readRawBody?: unknown;
		headers: IDataObject;
	};
	const staticData = this.getWorkflowStaticData('node');
	const stored = staticData as StoredWebhook;

	const rawBody = await rawBodyOf(request);
	const signature = request.headers['x-service-signature'];
	let check = verifySignature(rawBody, signature, stored.webhookSecret);
	let keyAtService = stored.webhookKeyAtService === true;
	if (check.problem === 'mismatch' || check.problem === 'missingSecret') {
		// Static data may have been set back by a slower delivery's write-back: the service holds the secret.
		for (const key of await keysAtService(this)) {
			if (!verifySignature(rawBody, signature, key.secret).valid) continue;
			check = { valid: true };
			keyAtService = true;
			Object.assign(staticData, {
				webhookId: key.id,
				webhookSecret: key.secret,
				webhookKeyAtService: true,
			});
			break;
		}
	}
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
	const tolerance = replayToleranceSeconds(options.replayTolerance, this.getNode().typeVersion);
	const now = Date.now();

	// A repeat of a delivery that started an execution: 200, so the service stops sending it,
	// and no second execution. Checked before the replay window: a known repeat is no late one.
	const scanId = scanIdFromDelivery(body);
	const key = deliveryKey(event, body, 'id' in scanId ? scanId.id : undefined);
	const windowSeconds = repeatWindowSeconds(tolerance);
	if (firstReceivedAt(staticData, key, now, windowSeconds) !== undefined) {
		this.logger.debug(
			`Document Scanning Trigger: repeated delivery ${key} answered 200, no execution started`,
		);
		return respond(this, 200, { received: true, duplicate: true });
	}

	const data = isPlainObject(body.data) ? body.data : {};
	const subscribed = selectedEvents(this.getNodeParameter('events', []));
	const ignored = filterReason(event, data, subscribed, options);
	if (ignored !== undefined) {
		return respond(this, 200, { received: true, ignored });
	}

	// Late: never a failure at the service (it would cost the webhook), never silent.
	const late = replayProblem(body.timestamp, tolerance, now, forgottenUpTo(staticData));
	if (late !== undefined) {
		const scan = 'id' in scanId ? `scan ${scanId.id}` : 'a scan the delivery does not name';
		this.logger.warn(
			`Document Scanning Trigger: ${event} of ${scan} started no execution: ${late}. Read the scan with Document Scanning → Scan → Get, or the Poll Trigger.`,
		);
		return respond(this, 200, { received: true, late: true });
	}

	// Recorded before answering: n8n writes the static data back once this handler returns.
	if (keyAtService) {
		const signedAt = tolerance === 0 ? now : (parseTimestamp(body.timestamp) ?? now);
		const forgotten = remember(staticData, key, signedAt, now, windowSeconds);
		if (forgotten !== undefined)
			this.logger.warn(
				`Document Scanning Trigger: more than ${MAX_REMEMBERED} deliveries within ${windowSeconds} s; deliveries signed up to ${new Date(forgotten).toISOString()} are now answered as late (the replay tolerance in effect shrinks), so that no repeat of a forgotten one runs again`,
			);
	}

	// Answer the service now, before any fetch: its 10 s wait (and the failure count that
	// deactivates the webhook) must not depend on how fast GET /scans/{id} is.
	respond(this, 200, { received: true });

	let scan: IDataObject | undefined;
	let fetchError: string | undefined;
	if (options.includeFullScan) {
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
		const item: IDataObject = { ...withOriginalName(body), deliveryKey: key };
		if (isPlainObject(body.data)) item.data = withOriginalName(body.data);
		if (scan !== undefined) item.scan = withOriginalName(scan);
		if (fetchError !== undefined) item.fetchError = fetchError;
		items = [item];
	}

	const workflowData: INodeExecutionData[][] = [items.map((json) => ({ json }))];
	return { noWebhookResponse: true, workflowData };
}
