import type { IDataObject, IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	apiRequestFull,
	apiRequestList,
	fieldNames,
	httpStatusOf,
	unwrapRecord,
} from '../shared/transport';
import { recordEvents, selectedEvents } from '../shared/events';

/**
 * Registration of the trigger's webhook at the service (`webhookMethods.default`).
 *
 * Everything the trigger needs later lives in the node's workflow static data, which n8n
 * persists with the workflow and hands to every process (main, webhook processors,
 * workers). There is no module-level state.
 */

/** What the node keeps in `getWorkflowStaticData('node')`. */
export interface StoredWebhook {
	webhookId?: string | number;
	/** Signing secret; the service shows it only in the creation response. */
	webhookSecret?: string;
	webhookUrl?: string;
	webhookEvents?: string[];
}

const STATIC_KEYS: Array<keyof StoredWebhook> = [
	'webhookId',
	'webhookSecret',
	'webhookUrl',
	'webhookEvents',
];
const MAX_NAME_LENGTH = 255;

export function clearStoredWebhook(staticData: IDataObject): void {
	for (const key of STATIC_KEYS) delete staticData[key];
}

function sameEvents(a: string[], b: string[]): boolean {
	return a.length === b.length && a.every((event, index) => event === b[index]);
}

/** URLs compared without a trailing slash (a server may normalise it away or add it). */
function sameUrl(a: unknown, b: unknown): boolean {
	if (typeof a !== 'string' || typeof b !== 'string') return false;
	return a.trim().replace(/\/+$/, '') === b.trim().replace(/\/+$/, '');
}

/**
 * The active flag of a webhook record: `is_active` or `active` booleans, or a `status`
 * string. A record without any flag counts as active.
 */
export function isRecordActive(record: IDataObject): boolean {
	for (const key of ['is_active', 'active'] as const) {
		const value = record[key];
		if (typeof value === 'boolean') return value;
		if (value === 0 || value === 1) return value === 1;
		if (typeof value === 'string' && /^(true|false|0|1)$/i.test(value.trim())) {
			return /^(true|1)$/i.test(value.trim());
		}
	}
	if (typeof record.status === 'string') {
		return ['active', 'enabled', 'ok'].includes(record.status.trim().toLowerCase());
	}
	return true;
}

function webhookUrlOf(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) {
		throw new NodeOperationError(
			ctx.getNode(),
			'n8n could not determine the webhook URL of this trigger',
		);
	}
	return url;
}

function webhookName(ctx: IHookFunctions): string {
	const workflowName =
		ctx.getWorkflow().name ?? `workflow ${String(ctx.getWorkflow().id ?? '')}`.trim();
	const name = `n8n: ${workflowName} / ${ctx.getNode().name}`;
	return name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH - 1)}…` : name;
}

/** DELETE /webhooks/{id}; returns once it is deleted or already gone (404). Other failures throw. */
async function deleteRemote(ctx: IHookFunctions, id: string | number): Promise<void> {
	await apiRequestFull.call(ctx, {
		method: 'DELETE',
		path: `/webhooks/${encodeURIComponent(String(id))}`,
		passStatuses: [404],
	});
}

/**
 * True only when the stored webhook still exists on the server with this node's URL, is
 * active, subscribes to exactly the selected events, and its secret is held. Otherwise the
 * stale webhook (and any other webhook on the server with this URL, whose secret this node
 * cannot know) is deleted, static data is cleared, and false makes n8n call `create`.
 * A failure to list webhooks (network, auth) is thrown: the activation fails visibly and
 * nothing is deleted on a guess.
 */
export async function checkWebhookExists(this: IHookFunctions): Promise<boolean> {
	const staticData = this.getWorkflowStaticData('node');
	const stored = staticData as StoredWebhook;
	const url = webhookUrlOf(this);
	const events = selectedEvents(this.getNodeParameter('events', []));

	const webhooks = await apiRequestList.call(this, { method: 'GET', path: '/webhooks' });

	let keptId: string | undefined;
	const handled = new Set<string>();
	if (stored.webhookId !== undefined && stored.webhookId !== null) {
		const storedId = String(stored.webhookId);
		handled.add(storedId);
		const record = webhooks.find((webhook) => String(webhook.id) === storedId);
		const usable =
			record !== undefined &&
			sameUrl(record.url ?? stored.webhookUrl, url) &&
			isRecordActive(record) &&
			sameEvents(
				record.events === undefined ? (stored.webhookEvents ?? []) : recordEvents(record.events),
				events,
			) &&
			typeof stored.webhookSecret === 'string' &&
			stored.webhookSecret !== '';
		if (usable) {
			keptId = storedId;
		} else {
			if (record !== undefined) await deleteRemote(this, record.id as string | number);
			clearStoredWebhook(staticData);
		}
	} else {
		clearStoredWebhook(staticData);
	}

	// Webhooks for this URL whose secret is not held (static data lost, an earlier create
	// whose answer never arrived): their deliveries could never be verified, only duplicated.
	for (const webhook of webhooks) {
		const id = String(webhook.id);
		if (handled.has(id) || !sameUrl(webhook.url, url)) continue;
		await deleteRemote(this, webhook.id as string | number);
	}
	return keptId !== undefined;
}

function refusedUrlError(ctx: IHookFunctions, url: string, cause: NodeApiError): NodeApiError {
	const isTestUrl = /\/webhook-test\//.test(url);
	let host = '';
	try {
		host = new URL(url).hostname;
	} catch {
		host = '';
	}
	const isLocal =
		/^(localhost|127\.|\[?::1\]?$|0\.0\.0\.0|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(
			host,
		) || !host.includes('.');
	const serverDetail = cause.description ? `\nThe service said: ${cause.description}` : '';
	const error = new NodeApiError(
		ctx.getNode(),
		{ httpCode: '422', message: `The webhook URL ${url} was refused` } as JsonObject,
		{
			message: `The Document Scanning service refused the webhook URL ${url}: it accepts only publicly reachable HTTPS addresses. Give n8n a public HTTPS address with the WEBHOOK_URL environment variable.`,
			description:
				[
					`The service delivers events to ${url}, which must be a public https:// address it can reach.`,
					'Set the WEBHOOK_URL environment variable of n8n to the public HTTPS address n8n is reachable at (e.g. WEBHOOK_URL=https://n8n.example.com/), restart n8n, then activate the workflow again. A tunnel or reverse proxy with a certificate works too.',
					`Test URLs (/webhook-test/...) on localhost are refused by the real service as well: it cannot reach your machine, so testing this trigger needs the same public HTTPS address.${
						isTestUrl || isLocal ? ' This is such a URL.' : ''
					}`,
				].join('\n') + serverDetail,
			httpCode: '422',
		},
	);
	return error;
}

/** POST /webhooks for this node's URL and events; keeps id, secret, url and events in static data. */
export async function createWebhook(this: IHookFunctions): Promise<boolean> {
	const staticData = this.getWorkflowStaticData('node');
	const url = webhookUrlOf(this);
	const events = selectedEvents(this.getNodeParameter('events', []));
	if (events.length === 0) {
		throw new NodeOperationError(this.getNode(), 'Select at least one event to listen to', {
			description: 'Choose "Scan Completed", "Scan Failed" or both in the "Events" parameter.',
		});
	}

	let body: unknown;
	let failure: unknown;
	try {
		const response = await apiRequestFull.call(this, {
			method: 'POST',
			path: '/webhooks',
			body: { name: webhookName(this), url, events },
			retry: false,
		});
		body = response.body;
	} catch (error) {
		failure = error;
	}
	if (failure !== undefined) {
		if (failure instanceof NodeApiError && httpStatusOf(failure) === 422) {
			const fields = fieldNames((failure.errorResponse as IDataObject | undefined)?.errors);
			const text = `${failure.message} ${failure.description ?? ''}`;
			if (fields.includes('url') || (fields.length === 0 && /url/i.test(text))) {
				throw refusedUrlError(this, url, failure);
			}
		}
		// Already a NodeApiError worded by the transport (no secret in it).
		throw failure;
	}

	const record = unwrapRecord(body);
	const secretSource = (body as IDataObject | undefined)?.secret ?? record.secret;
	const secret = typeof secretSource === 'string' ? secretSource : undefined;
	const id = record.id as string | number | undefined;
	if (id === undefined || id === null || id === '') {
		throw new NodeOperationError(
			this.getNode(),
			'The service created the webhook but returned no ID',
			{
				description:
					'Without the ID the webhook cannot be checked or deleted later. Check the webhooks of the account in the application.',
			},
		);
	}
	if (!secret) {
		// A webhook whose deliveries cannot be verified is useless: remove it again.
		await deleteRemote(this, id);
		throw new NodeOperationError(
			this.getNode(),
			'The service created the webhook but returned no signing secret',
			{
				description:
					'Deliveries cannot be verified without the secret, so the webhook was deleted again.',
			},
		);
	}

	const stored: StoredWebhook = {
		webhookId: id,
		webhookSecret: secret,
		webhookUrl: typeof record.url === 'string' ? record.url : url,
		webhookEvents: record.events === undefined ? events : recordEvents(record.events),
	};
	Object.assign(staticData, stored);
	return true;
}

/**
 * DELETE /webhooks/{id}. A 404 means it is already gone. On success static data is
 * cleared and true returned. Any other failure is logged and answered with false (n8n's
 * convention); static data is then kept so the next `checkExists` can clean up.
 */
export async function deleteWebhook(this: IHookFunctions): Promise<boolean> {
	const staticData = this.getWorkflowStaticData('node');
	const stored = staticData as StoredWebhook;
	if (stored.webhookId === undefined || stored.webhookId === null) {
		clearStoredWebhook(staticData);
		return true;
	}
	try {
		await deleteRemote(this, stored.webhookId);
	} catch (error) {
		this.logger.warn('Document Scanning Trigger: could not delete the webhook at the service', {
			webhookId: String(stored.webhookId),
			error: error instanceof Error ? error.message : String(error),
		});
		return false;
	}
	clearStoredWebhook(staticData);
	return true;
}
