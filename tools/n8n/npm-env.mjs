// The environment for the npm commands that install the local n8n (tools/n8n/local.mjs).
//
// `npm run e2e` / `npm start` run inside an outer npm, which exports its settings as npm_config_*
// and describes itself in npm_package_*, npm_lifecycle_*, npm_execpath ... The user's own settings
// (cache, registry, proxy, https-proxy, cafile, userconfig, strict-ssl, ...) must reach the inner
// install: behind a corporate proxy it fails without them. Only what describes the outer npm
// process, or what the install decides for itself, is dropped:
//   - where to install: prefix, global, location, global-prefix, local-prefix, workspace(s);
//   - the outer npm and Node: user-agent, npm-version, node-gyp, nodedir (set to Node 24's headers);
//   - what the install command sets on its command line: ignore-scripts, dry-run, package-lock-only;
//   - allow-scripts: npm refuses it from the environment in a project's install (EALLOWSCRIPTS),
//     and the outer npm passes a user's .npmrc value on so; the inner npm still reads that .npmrc.

/** npm_config_* keys (lower case, `_` for `-`) the inner install must not inherit. */
export const OVERRIDDEN_NPM_CONFIG = [
	'prefix',
	'global',
	'location',
	'global_prefix',
	'local_prefix',
	'workspace',
	'workspaces',
	'include_workspace_root',
	'user_agent',
	'npm_version',
	'node_gyp',
	'nodedir',
	'ignore_scripts',
	'dry_run',
	'package_lock_only',
	'allow_scripts',
];

/** True for a variable that describes the outer npm process rather than the user's settings. */
export function isOuterNpmVariable(name) {
	const key = name.toLowerCase();
	if (key.startsWith('npm_config_'))
		return OVERRIDDEN_NPM_CONFIG.includes(key.slice('npm_config_'.length).replace(/-/g, '_'));
	// npm_package_*, npm_lifecycle_*, npm_command, npm_execpath, npm_node_execpath, ...
	return key.startsWith('npm_');
}

/**
 * A copy of `base` for running the install's npm: the user's npm settings kept, the outer npm's
 * description dropped, then `extra` on top (e.g. npm_config_nodedir for Node 24).
 */
export function npmInstallEnv(base = process.env, extra = {}) {
	const env = {};
	for (const [key, value] of Object.entries(base)) if (!isOuterNpmVariable(key)) env[key] = value;
	return { ...env, ...extra };
}
