/**
 * What the nodes send, seen from their side of the wire: every HTTP request the test process
 * makes, from Node's `diagnostics_channel` (`http.client.request.start`,
 * `http.client.response.finish`), in one ordered timeline. The sandbox's request log says what
 * arrived; this says when the node sent it and when it had heard an answer, so "no upload after
 * the first 429" is judged by what the node knew, not by when bytes crossed loopback.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';

export interface WireEvent {
	/** Position in the timeline (one counter for every event). */
	seq: number;
	/** `sent`: the request started; `heard`: its answer was read whole and the node had a turn to act on it. */
	phase: 'sent' | 'heard';
	/** Which request (the same for its `sent` and `heard`). */
	request: number;
	method: string;
	/** scheme://host:port */
	origin: string;
	/** Path with query. */
	path: string;
	status?: number;
	/** Whether the request carried an API key (`Authorization: Bearer …` or `X-API-Key`). */
	keyed: boolean;
	/** Retry-After of the answer, in seconds, when given. */
	retryAfter?: number;
	atMs: number;
}

export interface Timeline {
	events: WireEvent[];
	stop(): void;
}

interface StartMessage {
	request: ClientRequest;
}
interface FinishMessage {
	request: ClientRequest;
	response: IncomingMessage;
}

/** Records every client request of this process until `stop()`. */
export function observeWire(): Timeline {
	const events: WireEvent[] = [];
	const ids = new WeakMap<ClientRequest, number>();
	let next = 0;
	const base = (request: ClientRequest) => {
		const host = String(request.getHeader('host') ?? request.host);
		const auth = String(request.getHeader('authorization') ?? '');
		return {
			method: request.method,
			origin: `${request.protocol}//${host.includes(':') ? host : `${host}:80`}`,
			path: request.path,
			keyed: /^Bearer\s+\S/i.test(auth) || Boolean(request.getHeader('x-api-key')),
		};
	};
	const onStart = (message: unknown) => {
		const { request } = message as StartMessage;
		const id = next++;
		ids.set(request, id);
		events.push({
			seq: events.length,
			phase: 'sent',
			request: id,
			...base(request),
			atMs: Date.now(),
		});
	};
	const onFinish = (message: unknown) => {
		const { request, response } = message as FinishMessage;
		const id = ids.get(request);
		if (id === undefined) return;
		const header = response.headers['retry-after'];
		const retryAfter = header === undefined ? undefined : Number(header);
		// "Heard": the body was read and one turn of the event loop passed, so whatever the node
		// does on this answer (promise chains) has run.
		response.once('end', () =>
			setImmediate(() =>
				events.push({
					seq: events.length,
					phase: 'heard',
					request: id,
					...base(request),
					status: response.statusCode,
					...(retryAfter !== undefined && Number.isFinite(retryAfter) ? { retryAfter } : {}),
					atMs: Date.now(),
				}),
			),
		);
	};
	diagnostics.subscribe('http.client.request.start', onStart);
	diagnostics.subscribe('http.client.response.finish', onFinish);
	return {
		events,
		stop: () => {
			diagnostics.unsubscribe('http.client.request.start', onStart);
			diagnostics.unsubscribe('http.client.response.finish', onFinish);
		},
	};
}

/**
 * Work an execution left behind: requests its own promise chains start after it returned
 * (n8n counts the execution as ended; issue 31 §3.5). `run` runs the execution in an async
 * context of its own; `end` marks it returned; `stop` gives what it started since, as
 * "GET /api/v1/scans?page=2".
 */
export function watchAfterEnd(): {
	run<T>(work: () => Promise<T>): Promise<T>;
	end(): void;
	/** How many requests it started after `end` so far. */
	seen(): number;
	stop(): string[];
} {
	const owner = new AsyncLocalStorage<{ ended: boolean }>();
	const state = { ended: false };
	const late: string[] = [];
	const onStart = (message: unknown) => {
		const { request } = message as StartMessage;
		if (owner.getStore()?.ended) late.push(`${request.method} ${request.path}`);
	};
	diagnostics.subscribe('http.client.request.start', onStart);
	return {
		run: (work) => owner.run(state, work),
		end: () => {
			state.ended = true;
		},
		seen: () => late.length,
		stop: () => {
			diagnostics.unsubscribe('http.client.request.start', onStart);
			return late;
		},
	};
}
