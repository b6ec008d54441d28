// n8n's REST API (/rest/..., as the editor uses it): the one client of every tool that talks to a
// running n8n (npm start, the e2e checks, queue mode). Readiness, the owner account and login are
// here too. Errors name the method, the path and the status; no cookie or password is printed.

/** The owner account `npm start` and the e2e set up (N8N_OWNER_EMAIL / N8N_OWNER_PASSWORD). */
export const DEFAULT_OWNER = {
	email: process.env.N8N_OWNER_EMAIL || 'owner@example.com',
	password: process.env.N8N_OWNER_PASSWORD || 'Local-n8n-1',
	firstName: 'Local',
	lastName: 'Owner',
};

/** Whether n8n's REST API answers (/healthz answers before it is mounted; /rest/settings after). */
export async function restReady(url) {
	const res = await fetch(new URL('rest/settings', url), { signal: AbortSignal.timeout(2000) });
	return res.ok && (res.headers.get('content-type') ?? '').includes('json');
}

/**
 * Waits until n8n's REST API answers.
 * @param {string | URL} url n8n's base URL
 * @param {{ timeoutMs?: number, child?: import('node:child_process').ChildProcess }} [options]
 */
export async function waitForN8n(url, { timeoutMs = 180_000, child } = {}) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (child && child.exitCode !== null)
			throw new Error(`n8n exited with ${child.exitCode} before it was ready`);
		try {
			if (await restReady(url)) return;
		} catch {
			// not up yet: try again
		}
		await new Promise((r) => setTimeout(r, 500));
	}
	throw new Error(`n8n did not answer on ${url} within ${timeoutMs / 1000} s`);
}
/** Sets up the owner account through n8n's own first-run endpoint, when none is set up yet. */
export async function ensureOwner(url, owner = DEFAULT_OWNER) {
	const settings = await (await fetch(new URL('rest/settings', url))).json();
	if (!settings?.data?.userManagement?.showSetupOnFirstLoad) return false;
	const res = await fetch(new URL('rest/owner/setup', url), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(owner),
	});
	if (!res.ok) throw new Error(`owner setup failed: ${res.status} ${await res.text()}`);
	return true;
}

/** Logs in as the owner; returns the cookie header for /rest calls. */
export async function login(url, owner = DEFAULT_OWNER) {
	const res = await fetch(new URL('rest/login', url), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			emailOrLdapLoginId: owner.email,
			email: owner.email,
			password: owner.password,
		}),
	});
	if (!res.ok) throw new Error(`login failed: ${res.status} ${await res.text()}`);
	return res.headers
		.getSetCookie()
		.map((c) => c.split(';')[0])
		.join('; ');
}

/** Resolves when the port can be bound on 127.0.0.1. */

/** fetch, once more for an idempotent request (GET, DELETE) that failed without an answer. */
export async function fetchOnceMore(url, init = {}) {
	try {
		return await fetch(url, init);
	} catch (err) {
		if (!['GET', 'DELETE'].includes(init.method ?? 'GET') || !(err instanceof TypeError)) throw err;
		return await fetch(url, init);
	}
}

/** @typedef {{ status: number, ok: boolean, body: any }} RestAnswer */

/**
 * n8n's REST API with the owner's cookie. `cookie` may be a function, read at every call (the e2e
 * logs in again after restarting n8n).
 */
export class N8nRest {
	/**
	 * @param {string | URL} url n8n's base URL
	 * @param {{ cookie?: string | (() => string | undefined) }} [options]
	 */
	constructor(url, { cookie = '' } = {}) {
		this.url = url;
		/** @type {string | (() => string | undefined)} */
		this.cookie = cookie;
	}

	/** Sets up the owner (first run) and logs in. */
	async signIn() {
		await ensureOwner(this.url);
		this.cookie = await login(this.url);
	}

	/**
	 * One call; never throws for an HTTP status: { status, ok, body } (body: JSON, else the text).
	 * @param {string} method
	 * @param {string} pathname below /rest/, e.g. `workflows/1`
	 * @param {unknown} [body]
	 * @returns {Promise<RestAnswer>}
	 */
	async request(method, pathname, body) {
		const cookie = typeof this.cookie === 'function' ? this.cookie() : this.cookie;
		const res = await fetchOnceMore(new URL(`rest/${pathname}`, this.url), {
			method,
			headers: {
				cookie: cookie ?? '',
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
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
	}

	/** One call that must succeed: its `data` (or the whole JSON); throws naming method, path, status. */
	async call(method, pathname, body) {
		const { status, ok, body: json } = await this.request(method, pathname, body);
		if (!ok)
			throw new Error(
				`${method} /rest/${pathname}: ${status} ${String(typeof json === 'string' ? json : JSON.stringify(json)).slice(0, 300)}`,
			);
		return json?.data ?? json;
	}

	workflow(id) {
		return this.call('GET', `workflows/${id}`);
	}

	/** Activates (1.x: with the versionId; 2.x: the same call publishes the current version). */
	async activate(id) {
		const wf = await this.workflow(id);
		return this.call('POST', `workflows/${id}/activate`, { versionId: wf.versionId });
	}

	deactivate(id) {
		return this.call('POST', `workflows/${id}/deactivate`);
	}

	/**
	 * Activates or deactivates without throwing; the answer of the last call (checks assert on it).
	 * @returns {Promise<RestAnswer>}
	 */
	async setActive(id, active) {
		if (!active) return await this.request('POST', `workflows/${id}/deactivate`, {});
		const current = await this.request('GET', `workflows/${id}`);
		return await this.request('POST', `workflows/${id}/activate`, {
			versionId: current.body?.data?.versionId,
		});
	}

	/** A manual run (offloaded to a worker in queue mode); resolves with the execution id. */
	async runManually(id, triggerName) {
		const workflowData = await this.workflow(id);
		const data = await this.call('POST', `workflows/${id}/run`, {
			workflowData,
			triggerToStartFrom: { name: triggerName },
		});
		if (!data?.executionId)
			throw new Error(
				`the manual run answered no executionId: ${JSON.stringify(data).slice(0, 300)}`,
			);
		return String(data.executionId);
	}

	execution(id) {
		return this.call('GET', `executions/${id}`);
	}

	/** Polls until the execution is finished (not new/running/waiting); returns the full record. */
	async waitForExecution(id, timeoutMs = 120_000) {
		const deadline = Date.now() + timeoutMs;
		let last;
		while (Date.now() < deadline) {
			last = await this.execution(id).catch(() => undefined);
			if (last && !['new', 'running', 'waiting', 'unknown'].includes(last.status) && last.stoppedAt)
				return last;
			await new Promise((r) => setTimeout(r, 500));
		}
		throw new Error(
			`execution ${id} did not finish within ${timeoutMs / 1000} s (status ${last?.status})`,
		);
	}

	/** Executions of a workflow (newest first), at most `limit`. */
	async executions(workflowId, limit = 500) {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const data = await this.call('GET', `executions?filter=${filter}&limit=${limit}`);
		return data?.results ?? data ?? [];
	}

	/** A JSON file n8n serves beside /rest (e.g. `types/nodes.json`). */
	async served(pathname) {
		const cookie = typeof this.cookie === 'function' ? this.cookie() : this.cookie;
		const res = await fetchOnceMore(new URL(pathname, this.url), {
			headers: { cookie: cookie ?? '' },
		});
		return await res.json();
	}
}

/** The run data of an execution record from GET /rest/executions/:id (n8n stores it "flatted"). */
export function runDataOf(execution) {
	const raw = execution?.data;
	if (typeof raw !== 'string') return raw?.resultData?.runData ?? {};
	return parseFlatted(raw)?.resultData?.runData ?? {};
}

/** Minimal reader for the `flatted` format (an array whose strings are indexes into it). */
function parseFlatted(text) {
	const input = JSON.parse(text);
	const seen = new Map();
	const revive = (index) => {
		if (seen.has(index)) return seen.get(index);
		const value = input[index];
		if (typeof value !== 'object' || value === null) {
			seen.set(index, value);
			return value;
		}
		const out = Array.isArray(value) ? [] : {};
		seen.set(index, out);
		for (const [k, v] of Object.entries(value))
			out[k] = typeof v === 'string' ? revive(Number(v)) : v;
		return out;
	};
	return revive(0);
}

/** The JSON of the items a node output in its first run. */
export function nodeOutput(execution, nodeName) {
	const runs = runDataOf(execution)[nodeName];
	return (runs?.[0]?.data?.main?.[0] ?? []).map((item) => item.json);
}
