// Shared pieces of the e2e (tools/e2e/e2e.mjs) and its check modules in tools/e2e/checks/.
//
// A check module exports `async function checkSomething(ctx)`; tools/e2e/e2e.mjs calls it with the
// context of the running stack (see `E2eContext` below) and it records results with ctx.check().

import { N8nRest } from '../../n8n/rest.mjs';
import { SandboxClient, unwrap } from '../sandbox-client.mjs';

/**
 * @typedef {object} E2eContext
 * @property {ReturnType<import('../../n8n/lines.mjs').n8nLine>} line  the n8n line under test
 * @property {Record<string,string>} env      n8nEnv() of the e2e instance (n8nSync/n8nSpawn take it)
 * @property {Record<string,string>} serverEnv env of `n8n start`: n8n's default file access
 * @property {string} home                    its N8N_USER_FOLDER
 * @property {string} n8nUrl                  e.g. http://localhost:41234/ (once `n8n start` is up)
 * @property {string} cookie                  the owner's session cookie for /rest calls
 * @property {string} sandboxBaseUrl          the sandbox's API base URL (…/api/v1)
 * @property {string} apiKey                  the sandbox key of the imported credential
 * @property {{id:string,name:string,type:string}} credential
 * @property {string} filesDir                the folder `n8n execute` may read files from (sample invoices)
 * @property {string[]} n8nLog                every line `n8n start` printed so far
 * @property {() => Promise<void>} restartN8n stops and starts `n8n start` (same home, port); new cookie
 * @property {(name:string, ok:boolean, detail?:string) => boolean} check
 * @property {(line:string) => void} log
 */

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export { unwrap } from '../sandbox-client.mjs';

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

export { fetchOnceMore } from '../../n8n/rest.mjs';

/** The sandbox's API, authenticated: api('/account') -> { status, body } (SandboxClient.api). */
export function sandboxApi(baseUrl, apiKey) {
	const client = new SandboxClient(baseUrl, apiKey);
	return (pathname, init = {}) => client.api(pathname, init);
}

/** The one sandbox client (tools/e2e/sandbox-client.mjs) for a check. */
export function sandboxOf(ctx) {
	return new SandboxClient(ctx.sandboxBaseUrl, ctx.apiKey);
}

/**
 * The sandbox's webhooks whose URL holds `part` (a trigger's path: its one webhook). n8n 2.x
 * (de)registers it after the REST call returns: checks wait on this.
 */
export async function webhooksAt(ctx, part) {
	const hooks = unwrap((await sandboxOf(ctx).api('/webhooks')).body) ?? [];
	return hooks.filter((h) => String(h.url).includes(part));
}

/** The one n8n REST client (tools/n8n/rest.mjs) for a check: reads ctx.cookie at every call (ctx.restartN8n() logs in again). */
export function restOf(ctx) {
	return new N8nRest(ctx.n8nUrl, { cookie: () => ctx.cookie });
}

/** n8nRest(ctx)('GET', 'workflows/1') -> { status, ok, body }: restOf(ctx).request, never throws for a status. */
export function n8nRest(ctx) {
	const client = restOf(ctx);
	return (method, pathname, body) => client.request(method, pathname, body);
}

/** Activates or deactivates a workflow (N8nRest.setActive); returns the answer. */
export async function setWorkflowActive(ctx, workflowId, active) {
	return await restOf(ctx).setActive(workflowId, active);
}
