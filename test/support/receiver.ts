/** A loopback HTTP server that plays n8n's webhook endpoint and hands every request to a trigger harness. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { TriggerHarness, WebhookCallResult } from './trigger-harness';
import { lazyRequest, readRequest } from './webhook-request';

export interface Receiver {
	/** Base URL to hand to the trigger as n8n's webhook base URL. */
	baseUrl: string;
	results: WebhookCallResult[];
	close(): Promise<void>;
	/** Resolves when `count` deliveries have been handled. */
	waitFor(count: number, timeoutMs?: number): Promise<WebhookCallResult[]>;
}

/**
 * Starts a loopback HTTP server that hands every request to the trigger harness. With
 * `keepRawBody: false` it plays a webhook server that kept only the parsed body; with
 * `lazyRawBody: true` one that has not read the body yet but offers `req.readRawBody()`.
 */
export async function startReceiver(
	getHarness: () => Pick<TriggerHarness, 'deliver'>,
	{ keepRawBody = true, lazyRawBody = false } = {},
): Promise<Receiver> {
	const results: WebhookCallResult[] = [];
	const waiters: Array<() => void> = [];
	const server: Server = createServer((req, res) => {
		void (async () => {
			try {
				const request = lazyRawBody ? lazyRequest(req) : await readRequest(req);
				if (!keepRawBody) delete (request as { rawBody?: Buffer }).rawBody;
				results.push(await getHarness().deliver(request, res));
			} catch (error) {
				res.statusCode = 500;
				res.end(String((error as Error).message));
				results.push({ status: 500, body: String((error as Error).message) });
			}
			waiters.splice(0).forEach((wake) => wake());
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/webhook`,
		results,
		close: async () =>
			await new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
		// Generous: a condition wait, so a busy machine only makes it slower, never wrong.
		waitFor: async (count, timeoutMs = 20_000) => {
			const deadline = Date.now() + timeoutMs;
			while (results.length < count) {
				if (Date.now() > deadline) {
					throw new Error(`Expected ${count} deliveries, got ${results.length}`);
				}
				await new Promise<void>((resolve) => {
					waiters.push(resolve);
					setTimeout(resolve, 50);
				});
			}
			return results.slice(0, count);
		},
	};
}
