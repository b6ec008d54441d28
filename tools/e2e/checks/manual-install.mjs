// The README's manual install, run for real: `npm install n8n-nodes-document-scanning --omit=peer`
// in n8n's nodes folder (<N8N_USER_FOLDER>/.n8n/nodes), with this repository's `npm pack` tarball
// standing in for the registry's copy. The e2e's n8n then loads the package from that folder, the
// way a user's n8n does: n8n-workflow comes from n8n itself (n8n puts its own node_modules on
// NODE_PATH), so the e2e home must lie outside this repository, whose node_modules would shadow it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_NAME, ROOT, toolEnv } from '../../n8n/local.mjs';

function npm(args, { cwd, line }) {
	return spawnSync('npm', args, {
		cwd,
		env: toolEnv({}, { line }),
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
	});
}

/** `npm pack` of the built repository into a temp folder; returns the tarball's path. */
export function packTarball(line) {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'docscan-pack-'));
	const r = npm(
		['pack', '--ignore-scripts', '--json', '--loglevel=error', `--pack-destination=${dir}`],
		{ cwd: ROOT, line },
	);
	if (r.status !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
	return path.join(dir, JSON.parse(r.stdout)[0].filename);
}

/** The packages npm installed in a folder (keys of node_modules/.package-lock.json). */
export function installedPackages(dir) {
	const lock = JSON.parse(
		readFileSync(path.join(dir, 'node_modules', '.package-lock.json'), 'utf8'),
	);
	return Object.keys(lock.packages ?? {}).filter(Boolean);
}

/**
 * Runs the manual install into <home>/.n8n/nodes and records checks; returns true when the package
 * is in place for n8n to load.
 */
export function manualInstall({ home, line, check, log = console.log }) {
	const nodesDir = path.join(home, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	writeFileSync(
		path.join(nodesDir, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2) + '\n',
	);
	let tarball;
	try {
		tarball = packTarball(line);
		const t = Date.now();
		const r = npm(
			['install', tarball, '--omit=peer', '--no-audit', '--no-fund', '--loglevel=error'],
			{ cwd: nodesDir, line },
		);
		const packages = r.status === 0 ? installedPackages(nodesDir) : [];
		return check(
			'manual install: `npm install <npm pack tarball> --omit=peer` in .n8n/nodes installs exactly 1 package',
			r.status === 0 && packages.length === 1 && packages[0] === `node_modules/${PACKAGE_NAME}`,
			r.status === 0
				? `${packages.length} package(s): ${packages.join(', ')} in ${Date.now() - t} ms`
				: `exit ${r.status}: ${r.stderr.trim().slice(-500)}`,
		);
	} catch (err) {
		log(String(err.stack ?? err));
		return check(
			'manual install: `npm install <npm pack tarball> --omit=peer` in .n8n/nodes installs exactly 1 package',
			false,
			err.message,
		);
	} finally {
		if (tarball) rmSync(path.dirname(tarball), { recursive: true, force: true });
	}
}
