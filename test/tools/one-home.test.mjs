// node --test test/tools/ : one implementation per job in tools/ — one n8n REST client, one sandbox
// client, one signing helper, every benchmark reachable from `npm run bench`.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { N8nRest } from '../../tools/n8n/rest.mjs';
import { SandboxClient } from '../../tools/e2e/sandbox-client.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every .mjs/.js/.ts file under tools/ (the pinned lint CLI's install aside). */
function toolFiles(dir = path.join(ROOT, 'tools')) {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return entry.name === 'n8n-node-cli' ? [] : toolFiles(full);
		return /\.(mjs|js|ts)$/.test(entry.name) ? [full] : [];
	});
}

/** A loopback server answering each request with `answer(req, body)`; records what it got. */
async function server(answer) {
	const seen = [];
	const srv = createServer((req, res) => {
		let body = '';
		req.on('data', (c) => (body += c));
		req.on('end', () => {
			seen.push({ method: req.method, url: req.url, headers: req.headers, body });
			const [status, json] = answer(req, body);
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify(json));
		});
	});
	await new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(undefined)));
	const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
	return { url: `http://127.0.0.1:${port}/`, seen, close: () => srv.close() };
}

test('N8nRest reads the cookie at every call; call() names method, path and status, never the cookie', async () => {
	const srv = await server((req) =>
		req.url === '/rest/workflows/7' ? [200, { data: { id: '7' } }] : [404, { message: 'nope' }],
	);
	try {
		let cookie = 'n8n-auth=first';
		const rest = new N8nRest(srv.url, { cookie: () => cookie });
		assert.deepEqual(await rest.workflow('7'), { id: '7' });
		cookie = 'n8n-auth=second';
		const answer = await rest.request('GET', 'executions/1');
		assert.deepEqual(answer, { status: 404, ok: false, body: { message: 'nope' } });
		await assert.rejects(rest.call('POST', 'workflows/9/activate', {}), (error) => {
			assert.match(error.message, /^POST \/rest\/workflows\/9\/activate: 404 /);
			assert.doesNotMatch(error.message, /n8n-auth/);
			return true;
		});
		assert.deepEqual(
			srv.seen.map((r) => r.headers.cookie),
			['n8n-auth=first', 'n8n-auth=second', 'n8n-auth=second'],
		);
		assert.equal(srv.seen[2].headers['content-type'], 'application/json');
	} finally {
		srv.close();
	}
});

test('SandboxClient: the API with the key, the control routes unwrapped', async () => {
	const srv = await server((req) =>
		req.url.startsWith('/__sandbox/')
			? [201, { data: { ids: [4, 5] } }]
			: [200, { data: { used_scans: 3 } }],
	);
	try {
		const sandbox = new SandboxClient(`${srv.url}api/v1`, 'sk_test_key');
		assert.deepEqual(await sandbox.api('/account'), {
			status: 200,
			body: { data: { used_scans: 3 } },
		});
		assert.deepEqual(await sandbox.seedScans({ count: 2 }), [4, 5]);
		const control = await sandbox.control('POST', '/clock', { advanceMs: 0 });
		assert.deepEqual(control, { status: 201, ok: true, body: { ids: [4, 5] } });
		assert.equal(srv.seen[0].url, '/api/v1/account');
		assert.equal(srv.seen[0].headers.authorization, 'Bearer sk_test_key');
		assert.equal(srv.seen[1].url, '/__sandbox/scans');
		assert.deepEqual(JSON.parse(srv.seen[1].body), { count: 2 });
		assert.equal(srv.seen[1].headers.authorization, undefined);
	} finally {
		srv.close();
	}
});

test('one client and one signer: no tool signs, logs in or calls /__sandbox or /rest by hand', () => {
	const own = new Set(
		['tools/n8n/rest.mjs', 'tools/e2e/sandbox-client.mjs'].map((f) => path.join(ROOT, f)),
	);
	const offenders = [];
	for (const file of toolFiles()) {
		if (own.has(file)) continue;
		const text = readFileSync(file, 'utf8');
		const rel = path.relative(ROOT, file);
		if (/createHmac\(/.test(text)) offenders.push(`${rel}: signs (use sandbox/signing.js)`);
		// The real-n8n benchmark runs under the launcher's Node with its own small control call,
		// and the editor check's REST calls run inside the browser page (docs/design.md, "Tooling").
		if (rel === 'tools/bench/real-n8n/run.mjs' || rel === 'tools/bench/sandbox-process.ts')
			continue;
		if (/fetch\([^)]*__sandbox/.test(text)) offenders.push(`${rel}: /__sandbox by hand`);
		if (/fetch\(new URL\(['`]rest\//.test(text)) offenders.push(`${rel}: /rest by hand`);
	}
	assert.deepEqual(offenders, []);
});

test('every benchmark is reachable from npm run bench (tools/bench/index.ts names it)', () => {
	const dir = path.join(ROOT, 'tools', 'bench');
	const index = readFileSync(path.join(dir, 'index.ts'), 'utf8');
	const runnable = readdirSync(dir)
		.filter((f) => f.endsWith('.ts') && f !== 'index.ts')
		.filter((f) => /export async function main\(/.test(readFileSync(path.join(dir, f), 'utf8')));
	assert.ok(runnable.length >= 3, `benchmarks found: ${runnable.join(', ')}`);
	const missing = runnable.filter((f) => !index.includes(`import('./${f.replace(/\.ts$/, '')}')`));
	assert.deepEqual(missing, []);
	const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	assert.match(pkg.scripts.bench, /tools\/bench\/index\.ts$/);
});
