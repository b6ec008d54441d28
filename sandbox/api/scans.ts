/** Routes for scans: upload, list, get. */
import { createHash } from 'node:crypto';
import { fileTypeProblems, MAX_UPLOAD_BYTES } from './filetype';
import { ApiResponse, errorResponse, FieldErrors, parsePositiveInt } from './http';
import {
	isMultipart,
	MultipartBody,
	MultipartError,
	parseMultipart,
	UploadedFile,
} from './multipart';
import {
	PAGE_SIZE,
	paginate,
	presentCreatedScan,
	presentListedScan,
	presentScan,
	wrapOne,
	wrapPage,
} from './present';
import { pdfTextLines } from '../engine/pdf-text';
import { ROLLING_WINDOW_MS } from '../engine/records';
import { SCAN_STATUSES, ScanStatus } from '../types';

import { Handler, HandlerContext, invalid, ok } from './handler';

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

/**
 * Check order: 422 validation, 404 template, 429 rate limit, 402 credit, 409 duplicate; with the
 * option duplicateCheck 'beforeLimits', the 409 comes before the 429 and the 402.
 */
export const uploadScan: Handler = async (ctx) => {
	const { core, account } = ctx;
	const body = await readUpload(ctx);
	if (body instanceof FieldErrors) return invalid(ctx, body);

	const errors = new FieldErrors();
	const templateId = checkTemplateId(body.fields.template_id, errors);
	const file = checkFile(body, errors);
	if (templateId === undefined || file === undefined) return invalid(ctx, errors);

	const template = core.store.usableTemplate(account.id, templateId);
	if (!template) return errorResponse(404, `Template ${templateId} not found.`);

	const contentSha256 = createHash('sha256').update(file.data).digest('hex');
	const duplicate = () => {
		const earlier = core.store.findDuplicate(account.id, template.id, contentSha256);
		return earlier
			? errorResponse(
					409,
					`This file was already uploaded with template ${template.id} (scan ${earlier.id}).`,
				)
			: undefined;
	};
	const duplicateFirst = core.options.duplicateCheck === 'beforeLimits';
	const early = duplicateFirst ? duplicate() : undefined;
	if (early) return early;

	const limited = rateLimited(ctx);
	if (limited) return limited;

	if (core.store.remainingScans(account) <= 0)
		return errorResponse(402, 'Not enough scan credit: 0 scans remaining.');

	const late = duplicateFirst ? undefined : duplicate();
	if (late) return late;

	const scan = core.store.createUploadedScan({
		account,
		template,
		filename: storedFilename(file.filename, core.options.storedFilename),
		contentSha256,
		documentText: pdfTextLines(file.data),
		plannedOutcome: core.processor.planOutcome(file.filename),
	});
	if (ctx.log) Object.assign(ctx.log, { scanId: scan.id, contentSha256 });
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

export const listScans: Handler = async (ctx) => {
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

	await core.listing.turn(page, (ms) => core.requestTimers.sleep(ms));
	core.beforeListing(page);
	const scans = core.store
		.listScans(account.id, { status, templateId })
		.filter((scan) => core.listing.isListed(scan.id));
	const pageUrl = (n: number): string => {
		const params = new URLSearchParams(query);
		params.set('page', String(n));
		return `${ctx.baseUrl}/scans?${params.toString()}`;
	};
	// Past the end: an empty page, an error, or the last page again (engine/listing-behaviour.ts).
	const choice = core.listing.choose(page, scans.length, PAGE_SIZE);
	if ('status' in choice) {
		core.listing.answered(page);
		return choice.status === 404
			? errorResponse(404, `Page ${page} not found: the listing has ${choice.lastPage} pages.`)
			: invalid(ctx, new FieldErrors().add('page', `The page must be at most ${choice.lastPage}.`));
	}
	// Only the page's scans are presented: a large account's listing costs one page, not all of it.
	const result = paginate(scans, choice.page, pageUrl, (last) => core.listing.reportedPages(last));
	core.listing.answered(page);
	return ok(
		200,
		wrapPage(core.options.envelope, {
			...result,
			items: result.items.map((scan) =>
				presentListedScan(scan, core.options.listedScans === 'brief'),
			),
		}),
	);
};

function scanNotFound(raw: string): ApiResponse {
	return errorResponse(404, `Scan ${raw} not found.`);
}

export const getScan: Handler = ({ core, account, params }) => {
	const id = parsePositiveInt(params[0]);
	const scan = id === undefined ? undefined : core.store.scanOf(account.id, id);
	return scan
		? ok(200, wrapOne(core.options.envelope, presentScan(scan)))
		: scanNotFound(params[0]);
};
