/** The Document Scanning API (paths relative to /api/v1). */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { authenticate, Credentials } from './auth';
import { SandboxCore } from './core';
import { fileTypeProblems, MAX_UPLOAD_BYTES } from './filetype';
import {
	ApiResponse,
	BodyTooLargeError,
	errorResponse,
	FieldErrors,
	InvalidJsonError,
	isPlainObject,
	parsePositiveInt,
	readJson,
	validationResponse,
} from './http';
import {
	isMultipart,
	MultipartBody,
	MultipartError,
	parseMultipart,
	UploadedFile,
} from './multipart';
import {
	paginate,
	presentBalance,
	presentCreatedScan,
	presentLog,
	presentScan,
	presentTemplate,
	presentWebhook,
	wrapList,
	wrapOne,
	wrapPage,
} from './present';
import { pdfTextLines } from './pdf-text';
import { matchRoute, route } from './router';
import { AccountRecord, MAX_WEBHOOKS_PER_ACCOUNT, ROLLING_WINDOW_MS } from './state';
import { SCAN_STATUSES, ScanStatus, WEBHOOK_EVENTS, WebhookEvent } from './types';
import { webhookUrlProblem } from './webhook-url';

export interface ApiRequest {
	req: IncomingMessage;
	/** Path after /api/v1. */
	path: string;
	query: URLSearchParams;
	credentials: Credentials;
	/** Absolute base for links, e.g. http://127.0.0.1:8787/api/v1 */
	baseUrl: string;
}

interface HandlerContext extends ApiRequest {
	core: SandboxCore;
	account: AccountRecord;
	params: string[];
}

type Handler = (ctx: HandlerContext) => ApiResponse | Promise<ApiResponse>;

const ok = (status: number, body: unknown): ApiResponse => ({ status, body });

function invalid(ctx: HandlerContext, errors: FieldErrors): ApiResponse {
	return validationResponse(errors, ctx.core.options.errorsShape);
}

// --- scans ------------------------------------------------------------------

async function readUpload(ctx: HandlerContext): Promise<MultipartBody | FieldErrors> {
	if (!isMultipart(ctx.req)) {
		return new FieldErrors()
			.add('template_id', 'The template_id field is required.')
			.add('file', 'The file field is required; send multipart/form-data.');
	}
	try {
		return await parseMultipart(ctx.req, { fileFields: ['file'], maxFileBytes: MAX_UPLOAD_BYTES });
	} catch (err) {
		if (err instanceof MultipartError)
			return new FieldErrors().add('file', `The multipart body could not be read: ${err.message}`);
		throw err;
	}
}

function checkTemplateId(raw: string | undefined, errors: FieldErrors): number | undefined {
	if (raw === undefined || raw.trim() === '') {
		errors.add('template_id', 'The template_id field is required.');
		return undefined;
	}
	const id = parsePositiveInt(raw.trim());
	if (id === undefined) errors.add('template_id', 'The template_id must be a positive integer.');
	return id;
}

function checkFile(body: MultipartBody, errors: FieldErrors): UploadedFile | undefined {
	const file = body.files.file;
	if (!file) {
		errors.add(
			'file',
			'file' in body.fields
				? 'The file field must be a file upload.'
				: 'The file field is required.',
		);
		return undefined;
	}
	if (file.truncated) {
		errors.add('file', `The file must not be larger than 20 MB (${MAX_UPLOAD_BYTES} bytes).`);
		return undefined;
	}
	if (file.data.length === 0) {
		errors.add('file', 'The file must not be empty.');
		return undefined;
	}
	const problems = fileTypeProblems(file.filename, file.data);
	for (const problem of problems) errors.add('file', problem);
	return problems.length === 0 ? file : undefined;
}

function rateLimited(ctx: HandlerContext): ApiResponse | undefined {
	const { rateLimitPerHour: limit, retryAfter } = ctx.core.options;
	const window = ctx.core.store.uploadsInWindow(ctx.account);
	if (window.length < limit) return undefined;
	// A slot frees when the upload that put the window at its limit leaves it.
	const freeingUpload = window[window.length - limit];
	const seconds =
		freeingUpload === undefined
			? 3600
			: Math.max(1, Math.ceil((freeingUpload + ROLLING_WINDOW_MS - ctx.core.clock.now()) / 1000));
	return errorResponse(
		429,
		`Too many scans: at most ${limit} scans per rolling hour.`,
		retryAfter ? { 'Retry-After': String(seconds) } : undefined,
	);
}

/** The name the service keeps: without a folder part (option storedFilename: basename), or as sent. */
function storedFilename(sent: string, mode: 'asSent' | 'basename'): string {
	return mode === 'basename'
		? sent.slice(Math.max(sent.lastIndexOf('/'), sent.lastIndexOf('\\')) + 1)
		: sent;
}

/** Check order: 422 validation, 404 template, 429 rate limit, 402 credit, 409 duplicate. */
const uploadScan: Handler = async (ctx) => {
	const { core, account } = ctx;
	const body = await readUpload(ctx);
	if (body instanceof FieldErrors) return invalid(ctx, body);

	const errors = new FieldErrors();
	const templateId = checkTemplateId(body.fields.template_id, errors);
	const file = checkFile(body, errors);
	if (templateId === undefined || file === undefined) return invalid(ctx, errors);

	const template = core.store.usableTemplate(account.id, templateId);
	if (!template) return errorResponse(404, `Template ${templateId} not found.`);

	const limited = rateLimited(ctx);
	if (limited) return limited;

	if (core.store.remainingScans(account) <= 0)
		return errorResponse(402, 'Not enough scan credit: 0 scans remaining.');

	const contentSha256 = createHash('sha256').update(file.data).digest('hex');
	const duplicate = core.store.findDuplicate(account.id, template.id, contentSha256);
	if (duplicate) {
		return errorResponse(
			409,
			`This file was already uploaded with template ${template.id} (scan ${duplicate.id}).`,
		);
	}

	const scan = core.store.createUploadedScan({
		account,
		template,
		filename: storedFilename(file.filename, core.options.storedFilename),
		contentSha256,
		documentText: pdfTextLines(file.data),
		plannedOutcome: core.processor.planOutcome(file.filename),
	});
	core.processor.start(scan);
	core.competition.afterUpload(account);
	return ok(201, wrapOne(core.options.envelope, presentCreatedScan(scan)));
};

function optionalFilter<T>(
	query: URLSearchParams,
	name: string,
	errors: FieldErrors,
	parse: (value: string) => T | undefined,
	message: string,
): T | undefined {
	const raw = query.get(name);
	if (raw === null || raw === '') return undefined;
	const value = parse(raw);
	if (value === undefined) errors.add(name, message);
	return value;
}

const listScans: Handler = (ctx) => {
	const { core, account, query } = ctx;
	const errors = new FieldErrors();
	const page =
		optionalFilter(
			query,
			'page',
			errors,
			parsePositiveInt,
			'The page must be an integer of at least 1.',
		) ?? 1;
	const status = optionalFilter(
		query,
		'status',
		errors,
		(v) => ((SCAN_STATUSES as readonly string[]).includes(v) ? (v as ScanStatus) : undefined),
		`The status must be one of: ${SCAN_STATUSES.join(', ')}.`,
	);
	const templateId = optionalFilter(
		query,
		'template_id',
		errors,
		parsePositiveInt,
		'The template_id must be a positive integer.',
	);
	if (!errors.isEmpty) return invalid(ctx, errors);

	core.beforeListing();
	const scans = core.store.listScans(account.id, { status, templateId });
	const pageUrl = (n: number): string => {
		const params = new URLSearchParams(query);
		params.set('page', String(n));
		return `${ctx.baseUrl}/scans?${params.toString()}`;
	};
	// Only the page's scans are presented: a large account's listing costs one page, not all of it.
	const result = paginate(scans, page, pageUrl);
	return ok(
		200,
		wrapPage(core.options.envelope, { ...result, items: result.items.map(presentScan) }),
	);
};

function scanNotFound(raw: string): ApiResponse {
	return errorResponse(404, `Scan ${raw} not found.`);
}

const getScan: Handler = ({ core, account, params }) => {
	const id = parsePositiveInt(params[0]);
	const scan = id === undefined ? undefined : core.store.scanOf(account.id, id);
	return scan
		? ok(200, wrapOne(core.options.envelope, presentScan(scan)))
		: scanNotFound(params[0]);
};

// --- templates and account --------------------------------------------------

/** Always `{data: [...]}`: the spec shows this envelope. */
const listTemplates: Handler = ({ core, account }) =>
	ok(200, { data: core.store.activeTemplates(account.id).map(presentTemplate) });

const getAccount: Handler = ({ core, account }) =>
	ok(
		200,
		wrapOne(core.options.envelope, presentBalance(account, core.store.remainingScans(account))),
	);

// --- webhooks ---------------------------------------------------------------

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

const createWebhook: Handler = async (ctx) => {
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
	const webhook = core.store.createWebhook({ accountId: account.id, name, url, events, secret });
	return ok(
		201,
		wrapOne(core.options.envelope, { ...presentWebhook(webhook, core.options.activeFlag), secret }),
	);
};

const listWebhooks: Handler = ({ core, account }) =>
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

const deleteWebhook: Handler = (ctx) => {
	const found = webhookOf(ctx);
	if ('status' in found) return found;
	ctx.core.store.deleteWebhook(found.id);
	return ok(200, wrapOne(ctx.core.options.envelope, { deleted: true, id: found.id }));
};

const webhookLogs: Handler = (ctx) => {
	const found = webhookOf(ctx);
	if ('status' in found) return found;
	return ok(
		200,
		wrapList(ctx.core.options.envelope, ctx.core.store.logsOf(found.id).map(presentLog)),
	);
};

// --- dispatch ---------------------------------------------------------------

const ROUTES = [
	route<Handler>('POST', '/scans', uploadScan),
	route<Handler>('GET', '/scans', listScans),
	route<Handler>('GET', '/scans/:id', getScan),
	route<Handler>('GET', '/templates', listTemplates),
	route<Handler>('GET', '/account', getAccount),
	route<Handler>('GET', '/webhooks', listWebhooks),
	route<Handler>('POST', '/webhooks', createWebhook),
	route<Handler>('DELETE', '/webhooks/:id', deleteWebhook),
	route<Handler>('GET', '/webhooks/:id/logs', webhookLogs),
];

/** Route lookup (404/405) comes before authentication (401/403). */
export async function handleApi(core: SandboxCore, request: ApiRequest): Promise<ApiResponse> {
	const method = request.req.method ?? 'GET';
	const match = matchRoute(ROUTES, method, request.path);
	if (match.kind === 'not_found')
		return errorResponse(404, `No API route ${method} ${request.path}.`);
	if (match.kind === 'method_not_allowed') {
		return errorResponse(
			405,
			`Method ${method} is not allowed here; allowed: ${match.allow.join(', ')}.`,
			{
				Allow: match.allow.join(', '),
			},
		);
	}
	const account = authenticate(core.store, request.credentials);
	if ('status' in account) return account;
	return match.handler({ ...request, core, account, params: match.params });
}
