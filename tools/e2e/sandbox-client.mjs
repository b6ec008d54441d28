// The sandbox over HTTP: its API (/api/v1, authenticated) and its control routes (/__sandbox/...,
// docs/sandbox.md, "Control"). The one sandbox client of every e2e check, queue mode included.
import { fetchOnceMore } from '../n8n/rest.mjs';

/** The body of an answer without the `{ data }` envelope (the sandbox may send either). */
export const unwrap = (body) =>
	body && typeof body === 'object' && 'data' in body ? body.data : body;

export class SandboxClient {
	/**
	 * @param {string} baseUrl the API's base URL (`http://127.0.0.1:PORT/api/v1`)
	 * @param {string} apiKey a key of the account the checks use
	 */
	constructor(baseUrl, apiKey) {
		this.baseUrl = baseUrl;
		this.origin = new URL(baseUrl).origin;
		this.apiKey = apiKey;
	}

	/**
	 * The API, authenticated: api('/account') -> { status, body } (body: the JSON as sent).
	 * @param {string} pathname
	 * @param {RequestInit} [init]
	 * @returns {Promise<{ status: number, body: any }>}
	 */
	async api(pathname, init = {}) {
		const res = await fetchOnceMore(`${this.baseUrl}${pathname}`, {
			...init,
			headers: { authorization: `Bearer ${this.apiKey}`, ...(init.headers ?? {}) },
		});
		const text = await res.text();
		return { status: res.status, body: text ? JSON.parse(text) : undefined };
	}

	/**
	 * A control route: control('POST', '/clock', { advanceMs: 0 }) -> { status, ok, body } (body
	 * unwrapped). GET and DELETE go once more if the connection dropped without an answer.
	 * @param {string} method
	 * @param {string} pathname below /__sandbox, e.g. `/requests`
	 * @param {unknown} [body]
	 * @returns {Promise<{ status: number, ok: boolean, body: any }>}
	 */
	async control(method, pathname, body) {
		const res = await fetchOnceMore(`${this.origin}/__sandbox${pathname}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		return { status: res.status, ok: res.ok, body: unwrap(text ? JSON.parse(text) : undefined) };
	}

	/**
	 * Uploads a minimal PDF named `filename` (POST /scans; one credit), or the bytes `pdf`; the new
	 * scan's id. A name containing "fail" makes the sandbox fail the scan, "invalid" fail its
	 * validation (docs/sandbox.md).
	 * @param {string} filename
	 * @param {string} [templateId]
	 * @param {Buffer} [pdf]
	 * @returns {Promise<string>}
	 */
	async uploadPdf(
		filename,
		templateId = '1',
		pdf = Buffer.from(`%PDF-1.4\n% ${filename}\n%%EOF\n`),
	) {
		const form = new FormData();
		form.append('template_id', templateId);
		form.append('file', new Blob([pdf], { type: 'application/pdf' }), filename);
		const { status, body } = await this.api('/scans', { method: 'POST', body: form });
		if (status !== 201) throw new Error(`upload ${filename}: HTTP ${status}`);
		return unwrap(body).id;
	}

	/** The request log (method, path, query, status, authScheme of each API request). */
	async requests() {
		return (await this.control('GET', '/requests')).body ?? [];
	}

	/** How many listing reads (GET /scans) the request log holds: one per poll of the poll trigger. */
	async listingReads() {
		return (await this.requests()).filter((r) => r.method === 'GET' && r.path === '/scans').length;
	}

	async clearRequests() {
		await this.control('DELETE', '/requests');
	}

	/** Seeds scans (POST /__sandbox/scans); their ids. */
	async seedScans(spec) {
		return (await this.control('POST', '/scans', spec)).body?.ids ?? [];
	}
}
