// node --test test/tools/ : the environment tools/n8n/local.mjs installs n8n with (issue 8,
// "npm settings"): the user's npm settings reach the install, the outer npm's description does not.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { NODE_BIN_DIR, NODE_HEADERS, n8nLine, toolEnv } from '../../tools/n8n/local.mjs';
import { npmInstallEnv } from '../../tools/n8n/npm-env.mjs';

/** What `npm run e2e` hands its script (measured with npm 11), plus a user's proxy settings. */
const OUTER = {
	PATH: '/usr/bin:/bin',
	HOME: '/home/someone',
	npm_config_cache: '/srv/npm-cache',
	npm_config_registry: 'https://registry.corp.example/',
	npm_config_proxy: 'http://proxy.corp.example:3128/',
	NPM_CONFIG_HTTPS_PROXY: 'http://proxy.corp.example:3128/',
	npm_config_cafile: '/etc/ssl/corp-ca.pem',
	npm_config_strict_ssl: 'true',
	npm_config_userconfig: '/home/someone/.npmrc',
	npm_config_globalconfig: '/usr/etc/npmrc',
	npm_config_omit_lockfile_registry_resolved: 'true',
	npm_config_nodedir: '/usr',
	npm_config_prefix: '/usr',
	npm_config_global_prefix: '/usr',
	npm_config_local_prefix: '/work/repo',
	npm_config_global: 'true',
	npm_config_ignore_scripts: 'true',
	// A user's allow-scripts=sharp in ~/.npmrc: the outer npm passes it on; npm refuses it from the
	// environment in a project's install (EALLOWSCRIPTS).
	npm_config_allow_scripts: 'sharp',
	npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
	npm_config_npm_version: '11.19.1',
	npm_config_node_gyp: '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
	npm_command: 'run',
	npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
	npm_node_execpath: '/usr/bin/node',
	npm_lifecycle_event: 'e2e',
	npm_lifecycle_script: 'node tools/e2e/e2e.mjs',
	npm_package_json: '/work/repo/package.json',
	npm_package_name: 'n8n-nodes-document-scanning',
};

test('keeps the user npm settings: cache, registry, proxies, CA, config files', () => {
	const env = toolEnv({}, { base: OUTER });
	for (const key of [
		'npm_config_cache',
		'npm_config_registry',
		'npm_config_proxy',
		'NPM_CONFIG_HTTPS_PROXY',
		'npm_config_cafile',
		'npm_config_strict_ssl',
		'npm_config_userconfig',
		'npm_config_globalconfig',
		'npm_config_omit_lockfile_registry_resolved',
	]) {
		assert.equal(env[key], OUTER[key], key);
	}
	assert.equal(env.HOME, OUTER.HOME);
});

test('drops what describes the outer npm and where it installs', () => {
	const env = toolEnv({}, { base: OUTER });
	for (const key of [
		'npm_config_prefix',
		'npm_config_global_prefix',
		'npm_config_local_prefix',
		'npm_config_global',
		'npm_config_ignore_scripts',
		'npm_config_allow_scripts',
		'npm_config_user_agent',
		'npm_config_npm_version',
		'npm_config_node_gyp',
		'npm_command',
		'npm_execpath',
		'npm_node_execpath',
		'npm_lifecycle_event',
		'npm_lifecycle_script',
		'npm_package_json',
		'npm_package_name',
	]) {
		assert.equal(key in env, false, key);
	}
});

test('builds native modules against Node 24 and puts Node 24 and the line first on PATH', () => {
	const line = n8nLine('2.40.7');
	const env = toolEnv({}, { line, base: OUTER });
	assert.equal(env.npm_config_nodedir, NODE_HEADERS);
	assert.equal(env.npm_config_update_notifier, 'false');
	assert.deepEqual(env.PATH.split(path.delimiter), [
		NODE_BIN_DIR,
		path.join(line.dir, 'node_modules', '.bin'),
		'/usr/bin',
		'/bin',
	]);
});

test('overrides in either case: an upper-case NPM_CONFIG_NODEDIR does not survive', () => {
	const env = npmInstallEnv(
		{
			NPM_CONFIG_NODEDIR: '/usr',
			NPM_CONFIG_PREFIX: '/usr',
			NPM_CONFIG_REGISTRY: 'https://r.example/',
		},
		{ npm_config_nodedir: '/n24' },
	);
	assert.deepEqual(env, { NPM_CONFIG_REGISTRY: 'https://r.example/', npm_config_nodedir: '/n24' });
});

test('does not change the environment it is given', () => {
	const base = { ...OUTER };
	toolEnv({ EXTRA: '1' }, { base });
	assert.deepEqual(base, OUTER);
});
