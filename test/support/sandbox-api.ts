/** The sandbox's API over real HTTP (global fetch, FormData, Blob), for tests: JSON calls and uploads. */
import { DEFAULT_API_KEY, Sandbox } from '../../sandbox/server';
import { pdfBytes } from './fixtures';

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

/** POST /scans as multipart/form-data; the reply as it came, whatever its status. */
export async function postScan(sandbox: Sandbox, input: UploadInput = {}): Promise<Reply> {
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

/**
 * Uploads a small PDF named `filename` through the API (the sandbox processes it unless held)
 * and returns the new scan's ID; any answer but 201 throws.
 */
export async function uploadScan(
	sandbox: Sandbox,
	filename: string,
	templateId = 1,
): Promise<number> {
	const file = Buffer.from(`%PDF-1.4\n% ${filename} ${Math.random()}\n%%EOF\n`);
	const { status, body } = await postScan(sandbox, { templateId, file, filename });
	if (status !== 201) throw new Error(`Upload failed: ${status} ${JSON.stringify(body)}`);
	return (body.data?.id ?? body.id) as number;
}
