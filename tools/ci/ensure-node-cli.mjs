#!/usr/bin/env node
// Makes n8n's official node CLI (`@n8n/node-cli`, pinned in tools/n8n-node-cli/) available to the
// repo, so that eslint.config.mjs can be n8n's own default (`import { config } from
// '@n8n/node-cli/eslint'`) and `n8n-node lint` / `n8n-node cloud-support` run here:
//   1. `npm ci --ignore-scripts` in tools/n8n-node-cli/ when its install is missing or stale;
//   2. node_modules/@n8n/node-cli -> tools/n8n-node-cli/node_modules/@n8n/node-cli (a link, so the
//      root's `import '@n8n/node-cli/eslint'` resolves; the CLI's own dependencies resolve from
//      the tools folder).
// Why a separate folder and --ignore-scripts: docs/design.md, "Tooling".
// The user's npm settings (registry, proxy, cache) apply; only the outer npm's own variables
// are dropped (tools/n8n/npm-env.mjs).
import { spawnSync } from 'node:child_process';
import {
	existsSync,
	lstatSync,
	mkdirSync,
	readFileSync,
	readlinkSync,
	rmSync,
	symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { npmInstallEnv } from '../n8n/npm-env.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const toolsDir = path.join(root, 'tools', 'n8n-node-cli');
const installedCli = path.join(toolsDir, 'node_modules', '@n8n', 'node-cli');
const linkPath = path.join(root, 'node_modules', '@n8n', 'node-cli');

/** The version tools/n8n-node-cli/package.json pins. */
export function pinnedVersion() {
	return JSON.parse(readFileSync(path.join(toolsDir, 'package.json'), 'utf8')).dependencies[
		'@n8n/node-cli'
	];
}

function installedVersion() {
	try {
		return JSON.parse(readFileSync(path.join(installedCli, 'package.json'), 'utf8')).version;
	} catch {
		return undefined;
	}
}

export function ensureNodeCli({ quiet = false } = {}) {
	if (installedVersion() !== pinnedVersion()) {
		if (!quiet)
			console.log(
				`Installing n8n's node CLI ${pinnedVersion()} into tools/n8n-node-cli/ (npm ci) ...`,
			);
		// `--loglevel=error`: the CLI's own dependencies name engines newer than this project's
		// Node (an EBADENGINE warning for isolated-vm, which the lint never runs: scripts are off).
		const result = spawnSync(
			'npm',
			['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
			{
				cwd: toolsDir,
				stdio: quiet ? 'pipe' : 'inherit',
				env: npmInstallEnv(),
			},
		);
		if (result.status !== 0) {
			throw new Error(
				`npm ci in tools/n8n-node-cli failed (exit ${result.status})${quiet ? `:\n${result.stderr}` : ''}`,
			);
		}
	}
	const target = path.relative(path.dirname(linkPath), installedCli);
	let current;
	try {
		current = lstatSync(linkPath).isSymbolicLink() ? readlinkSync(linkPath) : 'not a link';
	} catch {
		current = undefined;
	}
	if (current === target) return;
	// A real folder (someone installed the CLI into the root) is left alone.
	if (current === 'not a link') return;
	if (current !== undefined) rmSync(linkPath, { force: true });
	mkdirSync(path.dirname(linkPath), { recursive: true });
	symlinkSync(target, linkPath, 'dir');
	if (!existsSync(path.join(linkPath, 'package.json')))
		throw new Error(`${linkPath} does not resolve`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	try {
		ensureNodeCli();
	} catch (error) {
		console.error(error.message);
		process.exitCode = 1;
	}
}
