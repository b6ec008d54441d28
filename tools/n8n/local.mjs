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
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { n8nLine, pickVersion } from './lines.mjs';
import { NODE_BIN, ensureN8n, installPackage, log } from './install.mjs';
import { n8nEnv, n8nSync } from './processes.mjs';

// One import for the tools: every helper of the local n8n, each from the module of its job.
export { LOCAL, ROOT, n8nLine, pickVersion } from './lines.mjs';
export { DEFAULT_N8N_VERSION, TESTED_N8N_VERSIONS } from './lines.mjs';
export { DEFAULT_OWNER, ensureOwner, login, waitForN8n } from './rest.mjs';
export { PACKAGE_NAME } from '../constants.mjs';
export * from './install.mjs';
export * from './processes.mjs';
export * from './workflows.mjs';

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
