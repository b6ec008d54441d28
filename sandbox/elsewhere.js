'use strict';
// Another origin on the loopback (another port): where a redirect of the service may point. It
// answers every request 200 `{}` and records, for each one, whether it carried an API key
// (`Authorization` or `X-API-Key`), never the key itself. One module for the jest tests and the
// e2e (tools/e2e/checks/redirects.mjs): the key must never reach it.
const http = require('node:http');

/**
 * @typedef {{ method: string, path: string, withKey: boolean }} ElsewhereRequest
 * @typedef {{ origin: string, requests(): ElsewhereRequest[], clear(): void, close(): Promise<void> }} Elsewhere
 */

/** @returns {Promise<Elsewhere>} */
async function startElsewhere(host = '127.0.0.1') {
	/** @type {ElsewhereRequest[]} */
	let seen = [];
	const server = http.createServer((req, res) => {
		const withKey = Boolean(req.headers.authorization || req.headers['x-api-key']);
		seen.push({ method: String(req.method), path: String(req.url).split('?')[0], withKey });
		req.resume();
		req.on('end', () => {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end('{}');
		});
	});
	await new Promise((resolve) => server.listen(0, host, () => resolve(undefined)));
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	return {
		origin: `http://${host}:${address.port}`,
		requests: () => [...seen],
		clear: () => {
			seen = [];
		},
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve(undefined));
			}),
	};
}

module.exports = { startElsewhere };
