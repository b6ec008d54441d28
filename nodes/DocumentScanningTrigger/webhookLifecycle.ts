import type { IDataObject, IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	apiRequestFull,
	apiRequestList,
	fieldNames,
	httpStatusOf,
	unwrapRecord,
} from '../shared/transport';
import { eventList, selectedEvents } from '../shared/events';

/**
 * Registration of the trigger's one webhook at the service (`webhookMethods.default`): this
 * node's webhooks are found in GET /webhooks by their URL, its ID and signing secret are kept in
 * static data by activation. Deliveries only read them (delivery.ts), so no write-back of a
 * delivery can set them back.
 */

/** What the node keeps in `getWorkflowStaticData('node')`. */
export interface StoredWebhook {
	webhookId?: string | number;
	/** Signing secret; the service shows it only in the creation response. */
	webhookSecret?: string;
	webhookUrl?: string;
	webhookEvents?: string[];
}

const MAX_NAME_LENGTH = 255;

/** Clears what `StoredWebhook` names, and what earlier versions wrote (cleared like the rest). */
export function clearStoredWebhook(staticData: IDataObject): void {
	const earlier = ['webhookKeyAtService', 'recentDeliveries', 'forgottenUpTo'];
	for (const key of ['webhookId', 'webhookSecret', 'webhookUrl', 'webhookEvents', ...earlier])
		delete staticData[key];
}

/**
 * URLs compared as URLs (host in any case, a default port written or not: a service may
 * normalise), without query, fragment and trailing slash.
 */
function sameUrl(a: unknown, b: unknown): boolean {
	const base = (url: unknown) => {
		const text = String(url).trim();
		const parsed = URL.canParse(text) ? new URL(text) : undefined;
		return parsed && `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
	};
	return base(a) !== undefined && base(a) === base(b);
}

/**
 * The active flag of a webhook record: `is_active`, `active`, `enabled` or `is_enabled` (a
 * boolean, 0 / 1, or their text), or a `status` string. A record without any flag is active.
 */
export function isRecordActive(record: IDataObject): boolean {
	for (const key of ['is_active', 'active', 'enabled', 'is_enabled'] as const) {
		const value = String(record[key]).trim().toLowerCase();
		if (/^(true|false|0|1)$/.test(value)) return value === 'true' || value === '1';
	}
	const status = typeof record.status === 'string' ? record.status.trim().toLowerCase() : 'active';
	return ['active', 'enabled', 'ok'].includes(status);
}

function webhookUrlOf(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (url) return url;
	throw new NodeOperationError(
		ctx.getNode(),
		'n8n could not determine the webhook URL of this trigger',
	);
}

function webhookName(ctx: IHookFunctions): string {
	const workflowName =
		ctx.getWorkflow().name ?? `workflow ${String(ctx.getWorkflow().id ?? '')}`.trim();
	const name = `n8n: ${workflowName} / ${ctx.getNode().name}`;
	return name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH - 1)}…` : name;
}

/**
 * DELETE /webhooks/{id}, retried on a 5xx or a lost answer (deleting twice is harmless); returns
 * once it is deleted or already gone (404). Other failures throw.
 */
export async function deleteRemote(ctx: IHookFunctions, id: string | number): Promise<void> {
	await apiRequestFull.call(ctx, {
		method: 'DELETE',
		path: `/webhooks/${encodeURIComponent(String(id))}`,
		passStatuses: [404],
		retry: true,
	});
}

/**
 * This node's webhooks at the service: those of its URL, a query ignored. The stored ID of a
 * webhook with another URL is left alone and logged: static data cannot tell a WEBHOOK_URL changed
 * since from a workflow imported from another n8n, whose live webhook that is. Its deliveries
 * fail the new secret's check (401).
 */
async function webhooksOfNode(ctx: IHookFunctions): Promise<IDataObject[]> {
	const stored = ctx.getWorkflowStaticData('node') as StoredWebhook;
	const url = webhookUrlOf(ctx);
	const webhooks = await apiRequestList.call(ctx, { method: 'GET', path: '/webhooks' });
	const ours = webhooks.filter((webhook) => sameUrl(webhook.url, url));
	const away = webhooks.find((hook) => String(hook.id) === String(stored.webhookId));
	if (away && !ours.includes(away))
		ctx.logger.warn(
			`Document Scanning Trigger: webhook ${String(away.id)}, stored by this node, delivers to another address and is left alone; delete it with Webhook → Delete once no n8n uses it`,
		);
	return ours;
}

/**
 * True only when the stored webhook is this node's one webhook at the service for its URL, is
 * active, subscribes to exactly the selected events, and its secret is held. Otherwise every
 * webhook of this node is deleted (their deliveries could never be verified, only duplicated),
 * static data is cleared, and false makes n8n call `create`. A failure to list webhooks
 * (network, auth) is thrown: the activation fails visibly and nothing is deleted on a guess.
 */
export async function checkWebhookExists(this: IHookFunctions): Promise<boolean> {
	const staticData = this.getWorkflowStaticData('node');
	const stored = staticData as StoredWebhook;
	const events = selectedEvents(this.getNodeParameter('events', []));
	const ours = await webhooksOfNode(this);
	const main = ours.length === 1 ? ours[0] : undefined;
	const usable =
		main !== undefined &&
		String(main.id) === String(stored.webhookId) &&
		isRecordActive(main) &&
		JSON.stringify(
			main.events === undefined ? (stored.webhookEvents ?? []) : eventList(main.events).sort(),
		) === JSON.stringify(events) &&
		typeof stored.webhookSecret === 'string' &&
		stored.webhookSecret !== '';
	if (usable) return true;
	for (const webhook of ours) await deleteRemote(this, webhook.id as string | number);
	clearStoredWebhook(staticData);
	return false;
}

function refusedUrlError(ctx: IHookFunctions, url: string, cause: NodeApiError): NodeApiError {
	const host = /^[a-z]+:\/\/(\[[^\]]*\]|[^/:]*)/i.exec(url)?.[1] ?? '';
	const local =
		/\/webhook-test\//.test(url) ||
		!host.includes('.') ||
		/^(localhost|127\.|\[::1\]$|0\.0\.0\.0|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(host);
	const serverDetail = cause.description ? `\nThe service said: ${cause.description}` : '';
	return new NodeApiError(
		ctx.getNode(),
		{ httpCode: '422', message: `The webhook URL ${url} was refused` } as JsonObject,
		{
			message: `The Document Scanning service refused the webhook URL ${url}: it accepts only publicly reachable HTTPS addresses. Give n8n a public HTTPS address with the WEBHOOK_URL environment variable.`,
			description:
				[
					`The service delivers events to ${url}, which must be a public https:// address it can reach.`,
					'Set the WEBHOOK_URL environment variable of n8n to the public HTTPS address n8n is reachable at (e.g. WEBHOOK_URL=https://n8n.example.com/), restart n8n, then activate the workflow again. A tunnel or reverse proxy with a certificate works too.',
					`Test URLs (/webhook-test/...) on localhost are refused by the real service as well: it cannot reach your machine, so testing this trigger needs the same public HTTPS address.${
						local ? ' This is such a URL.' : ''
					}`,
				].join('\n') + serverDetail,
			httpCode: '422',
		},
	);
}

/** POST /webhooks for this node's URL and events; keeps id, secret, url and events in static data. */
export async function createWebhook(this: IHookFunctions): Promise<boolean> {
	const staticData = this.getWorkflowStaticData('node');
	const url = webhookUrlOf(this);
	const events = selectedEvents(this.getNodeParameter('events', []));
	if (events.length === 0)
		throw new NodeOperationError(this.getNode(), 'Select at least one event to listen to', {
			description: 'Choose "Scan Completed", "Scan Failed" or both in the "Events" parameter.',
		});

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
			if (fields.includes('url') || (fields.length === 0 && /url/i.test(text)))
				throw refusedUrlError(this, url, failure);
		}
		// Already a NodeApiError worded by the transport (no secret in it).
		throw failure;
	}

	const record = unwrapRecord(body);
	const secretSource = (body as IDataObject | undefined)?.secret ?? record.secret;
	const secret = typeof secretSource === 'string' ? secretSource : undefined;
	const id = record.id as string | number | undefined;
	const notReturned = (what: string, description: string) =>
		new NodeOperationError(
			this.getNode(),
			`The service created the webhook but returned no ${what}`,
			{ description },
		);
	if (id === undefined || id === null || id === '')
		throw notReturned(
			'ID',
			'Without the ID the webhook cannot be checked or deleted later. Check the webhooks of the account in the application.',
		);
	if (!secret) {
		// A webhook whose deliveries cannot be verified is useless: remove it again.
		await deleteRemote(this, id);
		throw notReturned(
			'signing secret',
			'Deliveries cannot be verified without the secret, so the webhook was deleted again.',
		);
	}

	Object.assign(staticData, {
		webhookId: id,
		webhookSecret: secret,
		webhookUrl: typeof record.url === 'string' ? record.url : url,
		webhookEvents: record.events === undefined ? events : eventList(record.events).sort(),
	} satisfies StoredWebhook);
	return true;
}

/**
 * Deletes the webhooks of this node's URL when the one it stored is among them (404: already
 * gone). Without a stored one nothing is deleted: another workflow's trigger may share the URL
 * (a `webhookId` imported twice, whose activation n8n undoes with this call), and a leftover is
 * cleaned by the next `checkExists`. On success static data is cleared and true returned. Any
 * other failure is logged and answered with false (n8n's convention); static data is then kept.
 */
export async function deleteWebhook(this: IHookFunctions): Promise<boolean> {
	const staticData = this.getWorkflowStaticData('node');
	const storedId = String((staticData as StoredWebhook).webhookId);
	try {
		const ours = staticData.webhookId === undefined ? [] : await webhooksOfNode(this);
		if (ours.some((webhook) => String(webhook.id) === storedId))
			for (const webhook of ours) await deleteRemote(this, webhook.id as string | number);
	} catch (error) {
		this.logger.warn('Document Scanning Trigger: could not delete the webhook at the service', {
			webhookId: storedId,
			error: error instanceof Error ? error.message : String(error),
		});
		return false;
	}
	clearStoredWebhook(staticData);
	return true;
}
