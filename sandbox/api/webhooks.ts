/** Routes for webhooks: create, list, delete, delivery logs. */
import { randomBytes } from 'node:crypto';
import {
	ApiResponse,
	BodyTooLargeError,
	errorResponse,
	FieldErrors,
	InvalidJsonError,
	isPlainObject,
	parsePositiveInt,
	readJson,
} from './http';
import { presentLog, presentWebhook, wrapList, wrapOne } from './present';
import { MAX_WEBHOOKS_PER_ACCOUNT } from '../engine/records';
import { WEBHOOK_EVENTS, WebhookEvent } from '../types';
import { webhookUrlProblem } from './webhook-url';

import { Handler, HandlerContext, invalid, ok } from './handler';

function checkName(raw: unknown, errors: FieldErrors): string | undefined {
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
		errors.add('name', 'The name field is required.');
	} else if (typeof raw !== 'string') errors.add('name', 'The name must be a string.');
	else if (raw.length > 255) errors.add('name', 'The name must not be longer than 255 characters.');
	else return raw.trim();
	return undefined;
}

function checkUrl(raw: unknown, allowInsecure: boolean, errors: FieldErrors): string | undefined {
	if (raw === undefined || raw === null || raw === '') {
		errors.add('url', 'The url field is required.');
		return undefined;
	}
	if (typeof raw !== 'string') {
		errors.add('url', 'The url must be a string.');
		return undefined;
	}
	if (raw.length > 2048) {
		errors.add('url', 'The url must not be longer than 2048 characters.');
		return undefined;
	}
	const problem = webhookUrlProblem(raw, allowInsecure);
	if (problem) errors.add('url', problem);
	return problem ? undefined : raw;
}

/** A non-empty list of known events; a comma-separated string is accepted too. Duplicates collapse. */
function checkEvents(raw: unknown, errors: FieldErrors): WebhookEvent[] | undefined {
	const list =
		typeof raw === 'string'
			? raw
					.split(',')
					.map((e) => e.trim())
					.filter((e) => e !== '')
			: raw;
	if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) {
		errors.add('events', 'The events field is required and must name at least one event.');
		return undefined;
	}
	if (!Array.isArray(list)) {
		errors.add('events', 'The events must be a list of event names.');
		return undefined;
	}
	const unknown = list.filter(
		(e) => typeof e !== 'string' || !(WEBHOOK_EVENTS as readonly string[]).includes(e),
	);
	if (unknown.length > 0) {
		errors.add(
			'events',
			`Unknown event(s) ${JSON.stringify(unknown)}; allowed: ${WEBHOOK_EVENTS.join(', ')}.`,
		);
		return undefined;
	}
	return [...new Set(list as WebhookEvent[])];
}

export const createWebhook: Handler = async (ctx) => {
	const { core, account } = ctx;
	let input: unknown;
	try {
		input = await readJson(ctx.req);
	} catch (err) {
		if (err instanceof BodyTooLargeError)
			return errorResponse(413, 'The request body is too large.');
		if (err instanceof InvalidJsonError)
			return invalid(ctx, new FieldErrors().add('body', err.message));
		throw err;
	}
	if (!isPlainObject(input))
		return invalid(ctx, new FieldErrors().add('body', 'The request body must be a JSON object.'));

	const errors = new FieldErrors();
	const name = checkName(input.name, errors);
	const url = checkUrl(input.url, core.options.allowInsecureWebhookUrls, errors);
	const events = checkEvents(input.events, errors);
	if (core.store.webhooksOf(account.id).length >= MAX_WEBHOOKS_PER_ACCOUNT) {
		errors.add(
			'webhooks',
			`An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first.`,
		);
	}
	if (name === undefined || url === undefined || events === undefined || !errors.isEmpty)
		return invalid(ctx, errors);

	const secret = `whsec_${randomBytes(16).toString('hex')}`;
	const stored = core.options.webhookUrlQuery === 'dropped' ? url.replace(/\?.*$/, '') : url;
	const webhook = core.store.createWebhook({
		accountId: account.id,
		name,
		url: stored,
		events,
		secret,
	});
	return ok(
		201,
		wrapOne(core.options.envelope, { ...presentWebhook(webhook, core.options.activeFlag), secret }),
	);
};

export const listWebhooks: Handler = ({ core, account }) =>
	ok(
		200,
		wrapList(
			core.options.envelope,
			core.store.webhooksOf(account.id).map((w) => presentWebhook(w, core.options.activeFlag)),
		),
	);

function webhookOf(ctx: HandlerContext): { id: number } | ApiResponse {
	const id = parsePositiveInt(ctx.params[0]);
	if (id === undefined || !ctx.core.store.webhookOf(ctx.account.id, id)) {
		return errorResponse(404, `Webhook ${ctx.params[0]} not found.`);
	}
	return { id };
}

export const deleteWebhook: Handler = (ctx) => {
	const found = webhookOf(ctx);
	if ('status' in found) return found;
	ctx.core.store.deleteWebhook(found.id);
	return ok(200, wrapOne(ctx.core.options.envelope, { deleted: true, id: found.id }));
};

export const webhookLogs: Handler = (ctx) => {
	const found = webhookOf(ctx);
	if ('status' in found) return found;
	return ok(
		200,
		wrapList(ctx.core.options.envelope, ctx.core.store.logsOf(found.id).map(presentLog)),
	);
};
