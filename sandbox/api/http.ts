/** Response objects, error bodies and small request helpers shared by the API and control routers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorsShape } from '../types';

export interface ApiResponse {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
	/** Sent as text/html instead of the JSON `body` (pages of the web server, not of the API). */
	html?: string;
}

const ERROR_CODES: Readonly<Record<number, string>> = {
	400: 'bad_request',
	401: 'unauthenticated',
	402: 'insufficient_credits',
	403: 'forbidden',
	404: 'not_found',
	405: 'method_not_allowed',
	409: 'duplicate_upload',
	413: 'payload_too_large',
	422: 'validation_failed',
	429: 'too_many_requests',
	500: 'internal_error',
	502: 'bad_gateway',
	503: 'service_unavailable',
	504: 'gateway_timeout',
};

export function errorCodeFor(status: number): string {
	return ERROR_CODES[status] ?? (status >= 500 ? 'server_error' : 'error');
}

/** `{error, message}` with the status's standard error code. */
export function errorResponse(
	status: number,
	message: string,
	headers?: Record<string, string>,
): ApiResponse {
	return { status, body: { error: errorCodeFor(status), message }, headers };
}

/** Collects 422 messages per field, in insertion order. */
export class FieldErrors {
	private readonly byField = new Map<string, string[]>();

	add(field: string, message: string): this {
		const list = this.byField.get(field) ?? [];
		list.push(message);
		this.byField.set(field, list);
		return this;
	}

	get isEmpty(): boolean {
		return this.byField.size === 0;
	}

	/** 'map': {field: [messages]}; 'list': [{field, message}] (one entry per message). */
	render(shape: ErrorsShape): Record<string, string[]> | Array<{ field: string; message: string }> {
		if (shape === 'map') return Object.fromEntries(this.byField);
		return [...this.byField].flatMap(([field, messages]) =>
			messages.map((message) => ({ field, message })),
		);
	}

	/** Laravel-style summary: the first message plus how many more there are. */
	summary(): string {
		const all = [...this.byField.values()].flat();
		if (all.length === 0) return 'The given data was invalid.';
		const more = all.length - 1;
		return more === 0 ? all[0] : `${all[0]} (and ${more} more error${more > 1 ? 's' : ''})`;
	}
}

export function validationResponse(errors: FieldErrors, shape: ErrorsShape): ApiResponse {
	return {
		status: 422,
		body: { error: errorCodeFor(422), message: errors.summary(), errors: errors.render(shape) },
	};
}

/**
 * The web server's own 404 page for paths outside the API prefix: HTML, not the API's JSON,
 * the way a real deployment answers a Base URL without /api/v1.
 */
export function notFoundPage(prefix: string): ApiResponse {
	return {
		status: 404,
		html: `<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The API lives under ${prefix}.</p></body></html>\n`,
	};
}

export function writeResponse(res: ServerResponse, response: ApiResponse): void {
	const payload =
		response.html ?? (response.body === undefined ? '' : JSON.stringify(response.body));
	res.writeHead(response.status, {
		...response.headers,
		'Content-Type': response.html === undefined ? 'application/json' : 'text/html; charset=utf-8',
		'Content-Length': Buffer.byteLength(payload),
	});
	res.end(payload);
}

export class BodyTooLargeError extends Error {}
export class InvalidJsonError extends Error {}

/** Reads the whole body up to `maxBytes` (the rest is drained and discarded). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let tooLarge = false;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > maxBytes) tooLarge = true;
			else chunks.push(chunk);
		});
		req.on('end', () =>
			tooLarge
				? reject(new BodyTooLargeError(`Body larger than ${maxBytes} bytes`))
				: resolve(Buffer.concat(chunks)),
		);
		req.on('error', reject);
	});
}

/** Parses a JSON body; an empty body is `{}`. Throws InvalidJsonError or BodyTooLargeError. */
export async function readJson(req: IncomingMessage, maxBytes = 1024 * 1024): Promise<unknown> {
	const raw = (await readBody(req, maxBytes)).toString('utf8');
	if (raw.trim() === '') return {};
	try {
		return JSON.parse(raw);
	} catch {
		throw new InvalidJsonError('The request body is not valid JSON.');
	}
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Positive integer from a path or query string value ("12"), else undefined. */
export function parsePositiveInt(value: string | null | undefined): number | undefined {
	if (value == null || !/^\d{1,15}$/.test(value)) return undefined;
	const n = Number(value);
	return n >= 1 ? n : undefined;
}
