import type { IDataObject, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { shapeScan } from '../DocumentScanning/helpers/scanOutput';
import { apiRequest } from '../DocumentScanning/transport';
import { describeProblem, headerValue, verifySignature } from './signature';
import { selectedEvents, type StoredWebhook } from './webhookLifecycle';

/**
 * Handling of one delivery (`webhook()`): signature first, then the event and option
 * filters, then the items. Nothing here is kept between deliveries.
 */

/** Upper bound for `GET /scans/{id}` ("Include Full Scan"); one attempt, no retries. */
export const FETCH_TIMEOUT_MS = 5_000;

export interface TriggerOptions {
	templateIds?: unknown;
	includeValidationFailed?: boolean;
	includeFullScan?: boolean;
	splitIntoRows?: boolean;
}

function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Template IDs of the option: a list (multi-select) or a comma-separated string (expression). */
export function templateIdSet(raw: unknown): Set<string> {
	const list = Array.isArray(raw) ? raw : typeof raw === 'string' || typeof raw === 'number' ? String(raw).split(',') : [];
	return new Set(list.map((entry) => String(entry).trim()).filter(Boolean));
}

/** Why a verified delivery starts nothing, or undefined when it should run the workflow. */
export function filterReason(event: string, data: IDataObject, subscribed: string[], options: TriggerOptions): string | undefined {
	if (!subscribed.includes(event)) return `event ${event || '(none)'} is not selected in this trigger`;
	const templates = templateIdSet(options.templateIds);
	// A delivery that does not name its template is let through: no failure goes unnoticed.
	if (templates.size > 0 && data.template_id !== undefined && data.template_id !== null) {
		if (!templates.has(String(data.template_id))) return `template ${String(data.template_id)} is not selected`;
	}
	if (event === 'scan.completed' && options.includeValidationFailed === false && data.status === 'validation_failed') {
		return 'scans with status validation_failed are excluded';
	}
	return undefined;
}

function respond(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

export async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject() as unknown as { rawBody?: unknown; headers: IDataObject };
	const stored = this.getWorkflowStaticData('node') as StoredWebhook;

	const check = verifySignature(request.rawBody, request.headers['x-service-signature'], stored.webhookSecret);
	if (!check.valid) {
		this.logger.debug(`Document Scanning Trigger: delivery rejected (${check.problem ?? 'unknown'})`);
		return respond(this, 401, { error: 'invalid_signature', message: describeProblem(check.problem) });
	}

	// The signed bytes are the source of truth: the item is built from them, not from a
	// body some middleware may have parsed differently.
	let body: unknown;
	try {
		body = JSON.parse((request.rawBody as Buffer).toString('utf8'));
	} catch {
		body = undefined;
	}
	if (!isRecord(body)) {
		return respond(this, 400, { error: 'invalid_body', message: 'The delivery body is not a JSON object' });
	}

	// The body is covered by the signature, the X-Service-Event header is not: the body wins.
	const headerEvent = headerValue(request.headers['x-service-event']);
	const event = typeof body.event === 'string' ? body.event : (headerEvent ?? '');
	const data = isRecord(body.data) ? body.data : {};
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const subscribed = selectedEvents(this.getNodeParameter('events', []));

	const ignored = filterReason(event, data, subscribed, options);
	if (ignored !== undefined) {
		return respond(this, 200, { received: true, ignored });
	}

	let answeredEarly = false;
	let scan: IDataObject | undefined;
	let fetchError: string | undefined;
	if (options.includeFullScan) {
		// Answer the service now: its 10 s wait (and the failure count that deactivates the
		// webhook) must not depend on how fast GET /scans/{id} is.
		respond(this, 200, { received: true });
		answeredEarly = true;
		const scanId = data.scan_id;
		if (scanId === undefined || scanId === null || scanId === '') {
			fetchError = 'The delivery names no data.scan_id, so the full scan could not be fetched';
		} else {
			try {
				scan = await apiRequest.call(this, {
					method: 'GET',
					path: `/scans/${encodeURIComponent(String(scanId))}`,
					retry: false,
					timeout: FETCH_TIMEOUT_MS,
				});
			} catch (error) {
				fetchError = error instanceof Error ? error.message : String(error);
			}
		}
	}

	let items: IDataObject[];
	if (options.splitIntoRows) {
		const rows = shapeScan(scan ?? data, 'rows');
		items = rows.map((row) =>
			Object.assign({ event: body.event, timestamp: body.timestamp }, row, {
				event: body.event,
				timestamp: body.timestamp,
			}),
		);
		if (fetchError !== undefined) items = items.map((item) => ({ ...item, fetchError }));
	} else {
		const item: IDataObject = { ...body };
		if (scan !== undefined) item.scan = scan;
		if (fetchError !== undefined) item.fetchError = fetchError;
		items = [item];
	}

	const workflowData: INodeExecutionData[][] = [items.map((json) => ({ json }))];
	return answeredEarly ? { noWebhookResponse: true, workflowData } : { workflowData };
}
