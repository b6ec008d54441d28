// Runs `npm ci` once when the dev dependencies are not installed yet, so that `npm start`
// and `npm test` work as the first commands on a fresh clone.
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
if (!existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
	console.log('Installing dev dependencies (npm ci) ...');
	// A user's allow-scripts (.npmrc) reaches this npm as npm_config_allow_scripts, which npm refuses
	// in a project's install; npm reads the .npmrc itself (package.json's allowScripts win).
	const env = { ...process.env };
	delete env.npm_config_allow_scripts;
	const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
		cwd: root,
		stdio: 'inherit',
		env,
	});
	if (result.status !== 0) process.exit(result.status ?? 1);
}
