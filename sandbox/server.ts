/**
 * Local sandbox of the Document Scanning API.
 *
 *   const sandbox = await startSandbox({ processingDelayMs: 20 });
 *   await fetch(`${sandbox.baseUrl}/account`, { headers: { Authorization: `Bearer ${DEFAULT_API_KEY}` } });
 *   await sandbox.close();
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readCredentials } from './api/auth';
import { isoWithOffset } from './engine/clock';
import { createControl, SandboxControl } from './control/control';
import { CONTROL_PREFIX, createControlHandler } from './control/routes';
import { SandboxCore } from './engine/core';
import { ApiResponse, errorResponse, notFoundPage, writeResponse } from './api/http';
import { DEFAULT_OPTIONS, mergeOptions } from './engine/options';
import { handleApi } from './api/routes';
import { RequestLogEntry, SandboxOptions } from './types';

export { DEFAULT_API_KEY, NO_BUSINESS_API_KEY } from './engine/records';
export type { ScanRecord, WebhookRecord, ValidationIssue } from './engine/records';
export type { SandboxControl } from './control/control';
export { REWRITES, type RewriteRow, type RewriteSetting } from './engine/rewrites';
export * from './types';

export const API_PREFIX = '/api/v1';

export interface Sandbox {
	/** e.g. http://127.0.0.1:PORT/api/v1 (no trailing slash) */
	readonly baseUrl: string;
	/** e.g. http://127.0.0.1:PORT */
	readonly origin: string;
	/**
	 * A second origin (another port on the same host) serving the same API and recording every
	 * request with `origin: 'other'`: where a `redirect` fault with `to: 'other'` points.
	 */
	readonly otherOrigin: string;
	readonly port: number;
	readonly control: SandboxControl;
	/** Stops the server, timers and deliveries in flight. */
	close(): Promise<void>;
}

/** Query parameters that look like credentials are never written to the log. */
function loggableQuery(params: URLSearchParams): string {
	if ([...params.keys()].length === 0) return '';
	const safe = new URLSearchParams();
	for (const [name, value] of params)
		safe.append(name, /key|token|secret|signature|auth/i.test(name) ? '[redacted]' : value);
	return `?${safe.toString()}`;
}

function apiPathOf(pathname: string): string | undefined {
	if (pathname === API_PREFIX) return '/';
	return pathname.startsWith(`${API_PREFIX}/`) ? pathname.slice(API_PREFIX.length) : undefined;
}

function isControlPath(pathname: string): boolean {
	return pathname === CONTROL_PREFIX || pathname.startsWith(`${CONTROL_PREFIX}/`);
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
}

/** Host part for URLs: wildcard binds are reached through loopback; IPv6 literals get brackets. */
function urlHost(host: string): string {
	if (host === '0.0.0.0') return '127.0.0.1';
	if (host === '::') return '[::1]';
	return host.includes(':') ? `[${host}]` : host;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const core = new SandboxCore(mergeOptions(DEFAULT_OPTIONS, options));
	const control = createControl(core);
	const handleControl = createControlHandler(control);
	let origin = '';
	let otherOrigin = '';

	const log = (line: string): void => core.options.log?.(line);

	async function handleControlRequest(
		req: http.IncomingMessage,
		res: http.ServerResponse,
		pathname: string,
	): Promise<void> {
		const started = Date.now();
		// Where the sandbox listens: the other origin's port is picked at start (e.g. for the e2e).
		const response: ApiResponse =
			req.method === 'GET' && pathname === `${CONTROL_PREFIX}/origins`
				? { status: 200, body: { origin, otherOrigin, baseUrl: `${origin}${API_PREFIX}` } }
				: await handleControl(req, pathname.slice(CONTROL_PREFIX.length) || '/');
		writeResponse(res, response);
		log(`[control] ${req.method} ${pathname} -> ${response.status} ${Date.now() - started}ms`);
	}

	async function handleApiRequest(
		req: http.IncomingMessage,
		res: http.ServerResponse,
		url: URL,
		elsewhere: boolean,
	): Promise<void> {
		const started = Date.now();
		const method = req.method ?? 'GET';
		const apiPath = apiPathOf(url.pathname);
		const credentials = readCredentials(req.headers);
		const entry: RequestLogEntry = {
			method,
			path: apiPath ?? url.pathname,
			query: Object.fromEntries(url.searchParams),
			status: null,
			authScheme: credentials.scheme,
			at: isoWithOffset(core.clock.now()),
			atMs: core.clock.now(),
			...(elsewhere ? { origin: 'other' as const } : {}),
		};
		core.requestLog.push(entry);
		core.requestHooks.arrived(method, entry.path);
		const fault = core.faults.take(method, entry.path);
		if (fault) entry.fault = fault.kind;
		const finish = (): void =>
			log(
				`${method} ${url.pathname}${loggableQuery(url.searchParams)} -> ${entry.status ?? 'dropped'} ` +
					`${Date.now() - started}ms auth=${credentials.scheme}${fault ? ` fault=${fault.kind}` : ''}`,
			);

		if (fault?.kind === 'drop') {
			req.socket.destroy();
			finish();
			return;
		}
		// A latency fault answers normally after its wait; a status fault with a wait answers its status then.
		if (fault && fault.latencyMs > 0) await core.requestTimers.sleep(fault.latencyMs);
		if (fault?.kind === 'hold') await core.holds.hold((ms) => core.requestTimers.sleep(ms));
		// Network latency of a real service (option latencyMs), before the request is handled.
		if (core.options.latencyMs > 0) await core.requestTimers.sleep(core.options.latencyMs);

		const answered = {
			method,
			path: entry.path,
			search: url.search,
			base: `${origin}${API_PREFIX}`,
		};
		const movedBefore = core.rewrites.before(answered);
		let response: ApiResponse;
		try {
			if (movedBefore) {
				response = movedBefore;
			} else if ((fault?.kind === 'status' || fault?.kind === 'status500') && fault.page) {
				const host = req.headers.host ?? 'the server';
				response = {
					status: fault.status,
					headers: fault.headers,
					html: `<!DOCTYPE html>\n<html><head><title>${fault.status}</title></head><body><h1>${fault.status}</h1><p>nginx at ${host}</p></body></html>\n`,
				};
			} else if (fault?.kind === 'status' || fault?.kind === 'status500') {
				response = errorResponse(
					fault.status,
					`Injected fault: HTTP ${fault.status}.`,
					fault.headers,
				);
			} else if (fault?.kind === 'redirect') {
				const to = `${fault.to === 'other' ? otherOrigin : origin}${url.pathname}${url.search}`;
				response = { status: fault.status, headers: { Location: to }, body: { moved: to } };
			} else if (apiPath === undefined) {
				response = notFoundPage(API_PREFIX);
			} else {
				const baseUrl = req.headers.host
					? `http://${req.headers.host}${API_PREFIX}`
					: `${origin}${API_PREFIX}`;
				response = await handleApi(core, {
					req,
					path: apiPath,
					query: url.searchParams,
					credentials,
					baseUrl,
					log: entry,
				});
			}
		} catch (err) {
			log(`internal error on ${method} ${url.pathname}: ${(err as Error).message}`);
			response = errorResponse(500, 'Internal sandbox error; retry the request later.');
		}
		if (!movedBefore)
			response = core.rewrites.after({ ...answered, scanId: entry.scanId }, response);
		entry.status = response.status;
		entry.doneAtMs = core.clock.now();
		// The Date header follows the sandbox's (virtual) clock, as a real server's follows its own.
		const dated = {
			...response,
			headers: { Date: new Date(core.clock.now()).toUTCString(), ...response.headers },
		};
		if (fault?.kind === 'dropAfterCommit') req.socket.destroy();
		else writeResponse(res, dated);
		finish();
	}

	const listener =
		(elsewhere: boolean) =>
		(req: http.IncomingMessage, res: http.ServerResponse): void => {
			const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
			const handled = isControlPath(url.pathname)
				? handleControlRequest(req, res, url.pathname)
				: handleApiRequest(req, res, url, elsewhere);
			handled.catch((err: Error) => {
				log(`unhandled error: ${err.message}`);
				if (!res.headersSent) writeResponse(res, errorResponse(500, 'Internal sandbox error.'));
			});
		};
	const server = http.createServer(listener(false));
	// The other origin: the same API on another port, every request recorded as `origin: 'other'`.
	const other = http.createServer(listener(true));

	const resolved = core.options;
	await listen(server, resolved.port, resolved.host);
	await listen(other, 0, resolved.host);
	const port = (server.address() as AddressInfo).port;
	origin = `http://${urlHost(resolved.host)}:${port}`;
	otherOrigin = `http://${urlHost(resolved.host)}:${(other.address() as AddressInfo).port}`;

	let closing: Promise<void> | undefined;
	return {
		baseUrl: `${origin}${API_PREFIX}`,
		origin,
		otherOrigin,
		port,
		control,
		close: () => {
			closing ??= Promise.all(
				[server, other].map(
					(each) =>
						new Promise<void>((resolve) => {
							core.shutdown();
							each.close(() => resolve());
							each.closeAllConnections();
						}),
				),
			).then(() => undefined);
			return closing;
		},
	};
}
