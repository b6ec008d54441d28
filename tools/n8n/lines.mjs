// The n8n lines `npm start` and `npm run e2e` can run: which version, where it lives, how it installs.
//
//   .n8n-local/node24/              Node 24, shared by every line
//   .n8n-local/n8n-<version>/       n8n@<version> (own package.json and node_modules)
//   .n8n-local/home-<version>/      N8N_USER_FOLDER of `npm start` on that line
//   .n8n-local/e2e-home-<version>/  N8N_USER_FOLDER of `npm run e2e` on that line (fresh every run)
//
// Choose with `--n8n <version>` (npm start / npm run e2e) or N8N_LOCAL_VERSION; default 1.123.81.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const LOCAL = path.join(ROOT, '.n8n-local');
export const DEFAULT_N8N_VERSION = '1.123.81';
/** The lines the e2e and CI run (README "Compatibility"). */
export const TESTED_N8N_VERSIONS = ['1.123.81', '2.40.7'];

/**
 * The version picked by `--n8n <v>` / `--n8n=<v>` in argv, else N8N_LOCAL_VERSION, else the default.
 * Returns { version, rest } where rest is argv without the option.
 */
export function pickVersion(argv = [], env = process.env) {
	const rest = [];
	let version;
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--n8n') {
			version = argv[++i];
			if (!version) throw new Error('--n8n needs a version, e.g. --n8n 2.40.7');
		} else if (arg.startsWith('--n8n=')) {
			version = arg.slice('--n8n='.length);
		} else {
			rest.push(arg);
		}
	}
	version = version || env.N8N_LOCAL_VERSION || DEFAULT_N8N_VERSION;
	if (!/^\d+\.\d+\.\d+$/.test(version))
		throw new Error(
			`n8n version "${version}": expected an exact version such as 1.123.81 or 2.40.7`,
		);
	return { version, rest };
}

/**
 * Everything that depends on the n8n version. The install recipe:
 * - both: xlsx comes from a tarball outside the npm registry in n8n's own dependencies: override
 *   it with the registry's 0.18.5; 2.x pins linkedom to 0.18.14 as well;
 * - both: `npm install --ignore-scripts`, then `npm rebuild` of the native modules n8n needs built
 *   for Node 24, the only install scripts the install approves (`allowScripts` in the folder's
 *   package.json, where npm reads them): sqlite3 (its prebuilt binaries come from GitHub, so it
 *   builds), and on 2.x isolated-vm (1.x's ships a Node 24 binary). No other script runs: they
 *   fetch prebuilt binaries or report telemetry, and a Kafka client's needs hosts this machine
 *   cannot reach.
 */
export function n8nLine(version) {
	const major = Number(version.split('.')[0]);
	const dir = path.join(LOCAL, `n8n-${version}`);
	const overrides = major >= 2 ? { xlsx: '0.18.5', linkedom: '0.18.14' } : { xlsx: '0.18.5' };
	return {
		version,
		major,
		dir,
		bin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		marker: path.join(dir, '.installed'),
		home: path.join(LOCAL, `home-${version}`),
		e2eHome: path.join(LOCAL, `e2e-home-${version}`),
		overrides,
		rebuild: major >= 2 ? ['sqlite3', 'isolated-vm'] : ['sqlite3'],
		/** The CLI command that makes a workflow active (2.x: publishes its current version). */
		activateArgs: (id) =>
			major >= 2
				? ['publish:workflow', `--id=${id}`]
				: ['update:workflow', `--id=${id}`, '--active=true'],
	};
}
