/**
 * A small front server for the review of issue 39: it forwards every request to the sandbox and
 * lets a test change one answer (status, headers, body) the way a real deployment's front
 * server might, where the spec leaves it open.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
	status: number;
	headers: http.IncomingHttpHeaders;
	body: Buffer;
}

export type Change = (request: { method: string; path: string }, answer: Answer) => Answer;

export async function startFront(
	sandboxBase: string,
	change: Change,
): Promise<{ base: string; origin: string; close: () => Promise<void> }> {
	const target = new URL(sandboxBase);
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', target.origin);
		// Plain bodies, so that a test can read and change them.
		const headers = { ...req.headers, host: target.host, 'accept-encoding': 'identity' };
		const upstream = http.request(url, { method: req.method, headers }, (answer) => {
			const chunks: Buffer[] = [];
			answer.on('data', (c: Buffer) => chunks.push(c));
			answer.on('end', () => {
				let out: Answer;
				try {
					out = change(
						{ method: req.method ?? 'GET', path: url.pathname },
						{
							status: answer.statusCode ?? 502,
							headers: { ...answer.headers },
							body: Buffer.concat(chunks),
						},
					);
				} catch (error) {
					// A test's change that fails is a 599 the test sees, never a hidden network error.
					out = { status: 599, headers: {}, body: Buffer.from(String(error)) };
				}
				const sent: http.OutgoingHttpHeaders = {
					...out.headers,
					'content-length': String(out.body.length),
				};
				delete sent['transfer-encoding'];
				res.writeHead(out.status, sent);
				res.end(out.body);
			});
		});
		upstream.on('error', () => res.destroy());
		req.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const origin = `http://127.0.0.1:${port}`;
	return {
		base: `${origin}${target.pathname}`,
		origin,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** JSON of an answer's body. */
export const jsonBody = (answer: Answer): unknown => JSON.parse(answer.body.toString());
