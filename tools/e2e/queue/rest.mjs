// n8n's REST API on main, as the editor uses it (owner cookie).
import { ensureOwner, login } from '../../n8n/local.mjs';

export class MainRest {
	/** `line`: the n8n line (2.x: the activate call publishes the workflow's current version). */
	constructor(url, line) {
		this.url = url;
		this.line = line;
		this.cookie = '';
	}

	async signIn() {
		await ensureOwner(this.url);
		this.cookie = await login(this.url);
	}

	async call(method, pathname, body) {
		const res = await fetch(new URL(`rest/${pathname}`, this.url), {
			method,
			headers: {
				cookie: this.cookie,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		let json;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = undefined;
		}
		if (!res.ok)
			throw new Error(`${method} /rest/${pathname}: ${res.status} ${text.slice(0, 300)}`);
		return json?.data ?? json;
	}

	workflow(id) {
		return this.call('GET', `workflows/${id}`);
	}

	async activate(id) {
		const wf = await this.workflow(id);
		return this.call('POST', `workflows/${id}/activate`, { versionId: wf.versionId });
	}

	deactivate(id) {
		return this.call('POST', `workflows/${id}/deactivate`);
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
