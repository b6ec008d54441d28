/**
 * A local HTTP server standing in for a webhook consumer of the service: it records every
 * request and answers with a chosen status, or never ('hang'). (The loopback server that plays
 * n8n's webhook endpoint for a trigger node is receiver.ts.)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	rawBody: Buffer;
}

export interface WebhookConsumer {
	url: string;
	received: ReceivedRequest[];
	/** Status to answer with; 'hang' never answers. */
	respondWith: number | 'hang';
	close(): Promise<void>;
}

export async function startConsumer(respondWith: number | 'hang' = 200): Promise<WebhookConsumer> {
	const received: ReceivedRequest[] = [];
	const receiver = { received, respondWith } as WebhookConsumer;
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
