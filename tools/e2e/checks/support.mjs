// Shared pieces of the e2e (tools/e2e/e2e.mjs) and its check modules in tools/e2e/checks/.
//
// A check module exports `async function checkSomething(ctx)`; tools/e2e/e2e.mjs calls it with the
// context of the running stack (see `E2eContext` below) and it records results with ctx.check().

import { createHmac } from 'node:crypto';

/**
 * @typedef {object} E2eContext
 * @property {ReturnType<import('../../n8n/lines.mjs').n8nLine>} line  the n8n line under test
 * @property {Record<string,string>} env      n8nEnv() of the e2e instance (n8nSync/n8nSpawn take it)
 * @property {string} home                    its N8N_USER_FOLDER
 * @property {string} n8nUrl                  e.g. http://localhost:41234/ (once `n8n start` is up)
 * @property {string} cookie                  the owner's session cookie for /rest calls
 * @property {string} sandboxBaseUrl          the sandbox's API base URL (…/api/v1)
 * @property {string} apiKey                  the sandbox key of the imported credential
 * @property {{id:string,name:string,type:string}} credential
 * @property {string} filesDir                the folder n8n may read files from (sample invoices)
 * @property {string[]} n8nLog                every line `n8n start` printed so far
 * @property {() => Promise<void>} restartN8n stops and starts `n8n start` (same home, port); new cookie
 * @property {(name:string, ok:boolean, detail?:string) => boolean} check
 * @property {(line:string) => void} log
 */

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const unwrap = (body) =>
	body && typeof body === 'object' && 'data' in body ? body.data : body;

/** The `X-Service-Signature` value the service sends: `sha256=` + hex HMAC-SHA256 of the raw body. */
export const signatureOf = (secret, rawBody) =>
	`sha256=${createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex')}`;

/** PASS/FAIL lines and the closing `N passed, M failed` line. */
export function createResults(out = console.log) {
	const results = [];
	return {
		results,
		check(name, ok, detail = '') {
			results.push({ name, ok: Boolean(ok) });
			out(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
			return Boolean(ok);
		},
		get failed() {
			return results.filter((r) => !r.ok).length;
		},
		summary() {
			const passed = results.filter((r) => r.ok).length;
			return `${passed} passed, ${results.length - passed} failed`;
		},
	};
}

/** Calls fn until it returns a truthy value or the time is up; returns the last value. */
export async function waitFor(fn, { timeoutMs = 30_000, intervalMs = 500 } = {}) {
	const deadline = Date.now() + timeoutMs;
	let value = await fn();
	while (!value && Date.now() < deadline) {
		await sleep(intervalMs);
		value = await fn();
	}
	return value;
}

/** The JSON document `n8n execute --rawOutput` prints (log lines may surround it). */
export function parseRunOutput(stdout) {
	const start = stdout.startsWith('{') ? 0 : stdout.indexOf('\n{') + 1;
	const end = stdout.lastIndexOf('\n}');
	if (start <= 0 && !stdout.startsWith('{')) throw new Error('no JSON in the output');
	return JSON.parse(stdout.slice(start, end + 2));
}

/** The json of the items a node output (first run, first output). */
export function nodeItems(run, nodeName) {
	const runs = run?.data?.resultData?.runData?.[nodeName];
	return (runs?.[0]?.data?.main?.[0] ?? []).map((item) => item.json);
}

/**
 * After a blocking call (n8nSync: `n8n execute`, imports): lets the event loop take in what happened
 * meanwhile, e.g. a server closing an idle keep-alive socket, before the next fetch would reuse it.
 */
export async function settle() {
	for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** fetch, once more for an idempotent request (GET, DELETE) that failed without an answer. */
export async function fetchOnceMore(url, init = {}) {
	try {
		return await fetch(url, init);
	} catch (err) {
		if (!['GET', 'DELETE'].includes(init.method ?? 'GET') || !(err instanceof TypeError)) throw err;
		return await fetch(url, init);
	}
}

/** The sandbox's API, authenticated: api('/account') -> { status, body }. */
export function sandboxApi(baseUrl, apiKey) {
	return async (pathname, init = {}) => {
		const res = await fetchOnceMore(`${baseUrl}${pathname}`, {
			...init,
			headers: { authorization: `Bearer ${apiKey}`, ...(init.headers ?? {}) },
		});
		const text = await res.text();
		return { status: res.status, body: text ? JSON.parse(text) : undefined };
	};
}

/**
 * n8n's REST API with the owner's cookie: n8nRest(ctx)('GET', 'workflows/1') -> { status, ok, body }.
 * Reads ctx.cookie at every call (ctx.restartN8n() logs in again).
 */
export function n8nRest(ctx) {
	return async (method, pathname, body) => {
		const res = await fetchOnceMore(new URL(`rest/${pathname}`, ctx.n8nUrl), {
			method,
			headers: { cookie: ctx.cookie, 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		let json;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = text;
		}
		return { status: res.status, ok: res.ok, body: json };
	};
}

/**
 * Activates a workflow through the REST API the editor uses (1.x: activate with the versionId;
 * 2.x: the same call publishes the current version). Returns the response.
 */
export async function setWorkflowActive(ctx, workflowId, active) {
	const rest = n8nRest(ctx);
	if (!active) return await rest('POST', `workflows/${workflowId}/deactivate`, {});
	const current = await rest('GET', `workflows/${workflowId}`);
	return await rest('POST', `workflows/${workflowId}/activate`, {
		versionId: current.body?.data?.versionId,
	});
}
