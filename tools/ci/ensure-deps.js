// Runs `npm ci` once when the dev dependencies are not installed yet, so that `npm start`
// and `npm test` work as the first commands on a fresh clone.
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
if (!existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
	console.log('Installing dev dependencies (npm ci) ...');
	const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
		cwd: root,
		stdio: 'inherit',
	});
	if (result.status !== 0) process.exit(result.status ?? 1);
}
