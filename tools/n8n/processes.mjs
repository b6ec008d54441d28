// Runs the local n8n and the sandbox as processes: n8n's environment per line, the n8n CLI,
// output prefixing, free ports, stopping a child.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lineNames, quietEnv } from './quiet.mjs';
import { LOCAL, ROOT } from './lines.mjs';
import { DEFAULT_LINE, FILES_DIR, NODE_BIN, lineOf, readMarker, toolEnv } from './install.mjs';

function localEncryptionKey() {
	const file = path.join(LOCAL, 'encryption-key');
	const existing = readMarker(file);
	if (existing) return existing;
	const key = 'local-dev-only-n8n-nodes-document-scanning';
	mkdirSync(LOCAL, { recursive: true });
	writeFileSync(file, key + '\n');
	return key;
}

/**
 * The environment every n8n command of this repository runs with.
 * @param {{ line?: ReturnType<typeof import('./lines.mjs').n8nLine>, home?: string, port?: number, brokerPort?: number, extra?: Record<string, string> }} [options]
 */
export function n8nEnv({
	line = DEFAULT_LINE,
	home = line.home,
	port = Number(process.env.N8N_PORT) || 5678,
	brokerPort,
	extra = {},
} = {}) {
	const env = toolEnv({
		N8N_LOCAL_VERSION: line.version,
		N8N_USER_FOLDER: home,
		N8N_PORT: String(port),
		N8N_HOST: 'localhost',
		N8N_LISTEN_ADDRESS: process.env.N8N_LISTEN_ADDRESS || '127.0.0.1',
		WEBHOOK_URL: `http://localhost:${port}/`,
		N8N_EDITOR_BASE_URL: `http://localhost:${port}/`,
		N8N_ENCRYPTION_KEY: localEncryptionKey(),
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		// Task runners (on for both lines, tools/n8n/quiet.mjs): the broker on 5679 unless told; one port per instance.
		N8N_RUNNERS_BROKER_PORT: String(brokerPort ?? port + 1),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_GIT_NODE_DISABLE_BARE_REPOS: 'true',
		// Read/Write Files from Disk: only here (2.x's default would be ~/.n8n-files), plus what the user allows.
		N8N_RESTRICT_FILE_ACCESS_TO: [FILES_DIR, process.env.N8N_RESTRICT_FILE_ACCESS_TO]
			.filter(Boolean)
			.join(';'),
		DB_TYPE: 'sqlite',
		DB_SQLITE_POOL_SIZE: '2',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL || 'info',
		N8N_LOG_OUTPUT: 'console',
		NODE_ENV: 'production',
		// No offline noise: the community-node catalogue and deprecation lines (tools/n8n/quiet.mjs).
		...quietEnv(line),
		...extra,
	});
	return lineNames(env, line);
}

/** Runs an n8n CLI command to completion; returns { status, stdout, stderr }. */
export function n8nSync(args, options = {}) {
	const { env = n8nEnv(), capture = true, timeoutMs } = options;
	const result = spawnSync(NODE_BIN, [lineOf(env).bin, ...args], {
		cwd: ROOT,
		env,
		encoding: 'utf8',
		stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
		timeout: timeoutMs,
		maxBuffer: 64 * 1024 * 1024,
	});
	if (result.error) throw result.error;
	return {
		status: result.status,
		signal: result.signal,
		stdout: result.stdout ?? '',
		stderr: result.stderr ?? '',
	};
}

/** Starts a long-running n8n command (e.g. `start`); returns the child process. */
export function n8nSpawn(args, options = {}) {
	const { env = n8nEnv(), stdio = ['ignore', 'pipe', 'pipe'] } = options;
	return spawn(NODE_BIN, [lineOf(env).bin, ...args], { cwd: ROOT, env, stdio });
}

/**
 * Pipes a child's output to ours, each line prefixed.
 * @param {import('node:stream').Readable} stream
 * @param {string} prefix
 * @param {NodeJS.WritableStream | null} [out]
 * @param {(line: string) => void} [onLine]
 */
export function prefixOutput(stream, prefix, out = process.stdout, onLine) {
	let rest = '';
	stream.setEncoding('utf8');
	stream.on('data', (chunk) => {
		const lines = (rest + chunk).split('\n');
		rest = lines.pop();
		for (const line of lines) {
			onLine?.(line);
			if (out) out.write(`${prefix}${line}\n`);
		}
	});
	stream.on('end', () => {
		if (rest) {
			onLine?.(rest);
			if (out) out.write(`${prefix}${rest}\n`);
		}
	});
}

/**
 * Starts the sandbox (`ts-node --transpile-only sandbox/cli.ts --allow-insecure-webhooks`) with the
 * Node running this script. Resolves with { child, baseUrl } once it prints its base URL.
 */
export function startSandbox({ port = 8787, quiet = false, echo = true, extraArgs = [] } = {}) {
	const tsNode = path.join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js');
	const args = [
		tsNode,
		'--transpile-only',
		'sandbox/cli.ts',
		'--allow-insecure-webhooks',
		'--port',
		String(port),
		...extraArgs,
	];
	if (quiet) args.push('--quiet');
	const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
	return new Promise((resolve, reject) => {
		let done = false;
		const timer = setTimeout(
			() => fail(new Error('the sandbox did not start within 60 s')),
			60_000,
		);
		function fail(err) {
			if (done) return;
			done = true;
			clearTimeout(timer);
			child.kill('SIGTERM');
			reject(err);
		}
		const stderr = [];
		prefixOutput(child.stdout, '[sandbox] ', echo ? process.stdout : null, (line) => {
			const m = /Base URL:\s+(\S+)/.exec(line);
			if (m && !done) {
				done = true;
				clearTimeout(timer);
				resolve({ child, baseUrl: m[1] });
			}
		});
		prefixOutput(child.stderr, '[sandbox] ', process.stderr, (line) => stderr.push(line));
		child.on('error', fail);
		child.on('exit', (code, signal) =>
			fail(
				new Error(
					`the sandbox exited (${code ?? signal}) before it was ready: ${stderr.join(' ')}`,
				),
			),
		);
	});
}

export async function portIsFree(port) {
	const net = await import('node:net');
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

export async function freePort() {
	const net = await import('node:net');
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
			server.close(() => resolve(port));
		});
	});
}

/** Sends SIGTERM, then SIGKILL after graceMs; resolves when the child has exited. */
export function stopChild(child, graceMs = 15_000) {
	if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => {
		const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
		child.once('exit', () => {
			clearTimeout(timer);
			resolve();
		});
		child.kill('SIGTERM');
	});
}
