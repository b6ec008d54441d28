/** Shared helpers for the sandbox tests: real HTTP via global fetch/FormData/Blob, plus a webhook receiver. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_API_KEY, Sandbox } from '../../sandbox/server';

let counter = 0;
const unique = (label: string): string =>
	`${label} ${process.pid}-${++counter}-${Math.random().toString(36).slice(2)}`;

/** A small PDF-looking file whose content differs on every call (no accidental 409). */
export function pdfBytes(label = 'doc'): Buffer {
	return Buffer.from(`%PDF-1.4\n% ${unique(label)}\n%%EOF\n`);
}

export function pngBytes(label = 'img'): Buffer {
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		Buffer.from(unique(label)),
	]);
}

export function jpegBytes(label = 'photo'): Buffer {
	return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(unique(label))]);
}

export interface Reply {
	status: number;
	body: any;
	headers: Headers;
}

export interface AuthOptions {
	/** API key; null sends none. Default DEFAULT_API_KEY. */
	key?: string | null;
	scheme?: 'bearer' | 'x-api-key';
}

function authHeaders({
	key = DEFAULT_API_KEY,
	scheme = 'bearer',
}: AuthOptions): Record<string, string> {
	if (key === null) return {};
	return scheme === 'bearer' ? { Authorization: `Bearer ${key}` } : { 'X-API-Key': key };
}

async function toReply(res: Response): Promise<Reply> {
	const text = await res.text();
	return {
		status: res.status,
		body: text === '' ? undefined : JSON.parse(text),
		headers: res.headers,
	};
}

/** A JSON request to the API (path relative to /api/v1). */
export async function api(
	sandbox: Sandbox,
	method: string,
	path: string,
	options: AuthOptions & { json?: unknown } = {},
): Promise<Reply> {
	const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders(options) };
	if (options.json !== undefined) headers['Content-Type'] = 'application/json';
	const res = await fetch(`${sandbox.baseUrl}${path}`, {
		method,
		headers,
		body: options.json === undefined ? undefined : JSON.stringify(options.json),
	});
	return toReply(res);
}

export interface UploadInput extends AuthOptions {
	/** Omitted with null. Default 1. */
	templateId?: string | number | null;
	/** Omitted with null. Default a fresh PDF. */
	file?: Buffer | null;
	filename?: string;
}

/** POST /scans as multipart/form-data. */
export async function upload(sandbox: Sandbox, input: UploadInput = {}): Promise<Reply> {
	const form = new FormData();
	const templateId = input.templateId === undefined ? 1 : input.templateId;
	if (templateId !== null) form.append('template_id', String(templateId));
	const file = input.file === undefined ? pdfBytes() : input.file;
	if (file !== null) form.append('file', new Blob([file]), input.filename ?? 'document.pdf');
	const res = await fetch(`${sandbox.baseUrl}/scans`, {
		method: 'POST',
		headers: { Accept: 'application/json', ...authHeaders(input) },
		body: form,
	});
	return toReply(res);
}

/** `{data: x}` -> x; anything else unchanged. */
export const unwrap = (body: any): any =>
	body && typeof body === 'object' && 'data' in body ? body.data : body;

export const sleep = (ms: number): Promise<void> =>
	new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls GET /scans/{id} until the status is one of `statuses`. Wait only for statuses a scan
 * stays in (terminal ones, or any status while held): a passing one can be missed between two
 * polls on a busy machine; use hold() and step() for those. The timeout is generous for the same reason.
 */
export async function waitForStatus(
	sandbox: Sandbox,
	id: number,
	statuses: string[],
	timeoutMs = 15_000,
	key?: string,
): Promise<any> {
	const deadline = Date.now() + timeoutMs;
	let last: unknown;
	while (Date.now() < deadline) {
		const reply = await api(sandbox, 'GET', `/scans/${id}`, { key });
		last = unwrap(reply.body);
		if (statuses.includes((last as { status: string }).status)) return last;
		await sleep(5);
	}
	throw new Error(
		`Scan ${id} did not reach ${statuses.join('/')} in ${timeoutMs} ms; last: ${JSON.stringify(last)}`,
	);
}

export interface ReceivedRequest {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	rawBody: Buffer;
}

export interface Receiver {
	url: string;
	received: ReceivedRequest[];
	/** Status to answer with; 'hang' never answers. */
	respondWith: number | 'hang';
	close(): Promise<void>;
}

/** A local HTTP server standing in for a webhook consumer. */
export async function startReceiver(respondWith: number | 'hang' = 200): Promise<Receiver> {
	const received: ReceivedRequest[] = [];
	const receiver = { received, respondWith } as Receiver;
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			received.push({
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				rawBody: Buffer.concat(chunks),
			});
			if (receiver.respondWith === 'hang') return;
			res.writeHead(receiver.respondWith, { 'Content-Type': 'text/plain' });
			res.end('ok');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
	receiver.close = () =>
		new Promise<void>((resolve) => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
	return receiver;
}
