#!/usr/bin/env node
// n8n's community-node verification checklist, every mechanical check in one command:
//   npm run verify                     all checks, one PASS/FAIL line each; exit 1 on any FAIL
//   node tools/ci/verify.mjs --only a,b the named checks (ids in the first column)
//   node tools/ci/verify.mjs --root DIR another package folder (the tests use fixtures)
// Offline: the scanner and the lint run locally; nothing is fetched (the CLI is installed once by
// tools/ci/ensure-node-cli.mjs). The packed-tarball scan needs `npm run build` first.
// What each check stands for: docs/verification.md.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

/** The eslint.config.mjs that `n8n-node cloud-support` accepts (compared without whitespace). */
export const DEFAULT_ESLINT_CONFIG =
	"import { config } from '@n8n/node-cli/eslint'; export default config;";
/** Files `n8n-node lint` and the scanner's source leg cover: what the package ships, from source. */
export const PACKAGE_FILES = ['nodes', 'credentials', 'package.json'];
/** Scanner rules for environment access, exfiltration (file system, network, processes) and eval-style obfuscation. */
export const SECURITY_RULES = [
	'@n8n/community-nodes/no-restricted-globals',
	'@n8n/community-nodes/no-restricted-imports',
	'@n8n/community-nodes/no-dangerous-functions',
	'@n8n/community-nodes/no-hardcoded-secrets',
	'@n8n/community-nodes/no-runtime-dependencies',
	'@n8n/community-nodes/no-forbidden-lifecycle-scripts',
];

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const pkgOf = (root) => readJson(path.join(root, 'package.json'));
const pass = (detail = '') => ({ ok: true, detail });
const fail = (detail) => ({ ok: false, detail });

function filesUnder(dir, accept) {
	if (!existsSync(dir)) return [];
	const out = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...filesUnder(full, accept));
		else if (accept(entry.name)) out.push(full);
	}
	return out;
}

/** Letters of a non-Latin script: a sign of text that is not English. */
const NON_LATIN_LETTER = /(?![\p{Script=Latin}])\p{L}/u;

export const checks = [
	{
		id: 'name',
		title: 'package name starts with n8n-nodes- (or @scope/n8n-nodes-)',
		run: (root) => {
			const { name } = pkgOf(root);
			return /^(@[a-z0-9][a-z0-9._~-]*\/)?n8n-nodes-[a-z0-9._~-]+$/.test(name ?? '')
				? pass(name)
				: fail(`name is ${JSON.stringify(name)}`);
		},
	},
	{
		id: 'keyword',
		title: 'keywords include n8n-community-node-package',
		run: (root) =>
			(pkgOf(root).keywords ?? []).includes('n8n-community-node-package')
				? pass()
				: fail('keyword missing'),
	},
	{
		id: 'license',
		title: 'MIT licence (package.json and the licence file)',
		run: (root) => {
			const { license } = pkgOf(root);
			if (license !== 'MIT') return fail(`package.json license is ${JSON.stringify(license)}`);
			const file = ['LICENSE.md', 'LICENSE', 'LICENSE.txt']
				.map((n) => path.join(root, n))
				.find(existsSync);
			if (!file) return fail('no LICENSE.md / LICENSE file');
			return /^MIT License/m.test(readFileSync(file, 'utf8'))
				? pass(path.basename(file))
				: fail(`${path.basename(file)} is not the MIT License text`);
		},
	},
	{
		id: 'dependencies',
		title: 'no runtime dependencies (n8n-workflow as the only peer)',
		run: (root) => {
			const pkg = pkgOf(root);
			const runtime = [
				'dependencies',
				'optionalDependencies',
				'bundleDependencies',
				'bundledDependencies',
			].flatMap((field) =>
				Object.keys(
					Array.isArray(pkg[field])
						? Object.fromEntries(pkg[field].map((n) => [n, 1]))
						: (pkg[field] ?? {}),
				).map((n) => `${field}: ${n}`),
			);
			const peers = Object.keys(pkg.peerDependencies ?? {})
				.filter((n) => n !== 'n8n-workflow')
				.map((n) => `peerDependencies: ${n}`);
			const found = [...runtime, ...peers];
			return found.length === 0 ? pass() : fail(found.join(', '));
		},
	},
	{
		id: 'lifecycle',
		title: 'no install-time scripts (preinstall, install, postinstall)',
		run: (root) => {
			const scripts = pkgOf(root).scripts ?? {};
			const found = ['preinstall', 'install', 'postinstall'].filter((s) => s in scripts);
			return found.length === 0 ? pass() : fail(found.join(', '));
		},
	},
	{
		id: 'strict',
		title: 'n8n.strict is true',
		run: (root) =>
			pkgOf(root).n8n?.strict === true
				? pass()
				: fail(`n8n.strict is ${JSON.stringify(pkgOf(root).n8n?.strict)}`),
	},
	{
		id: 'registered',
		title: 'every node and credential is registered in package.json and has its source',
		run: (root) => {
			const n8n = pkgOf(root).n8n ?? {};
			const problems = [];
			const registered = [...(n8n.nodes ?? []), ...(n8n.credentials ?? [])];
			if (registered.length === 0) problems.push('n8n.nodes and n8n.credentials are empty');
			for (const entry of registered) {
				const source = entry.replace(/^dist\//, '').replace(/\.js$/, '.ts');
				if (!entry.startsWith('dist/') || !existsSync(path.join(root, source)))
					problems.push(`${entry} has no source ${source}`);
			}
			const sources = [
				...filesUnder(path.join(root, 'nodes'), (n) => n.endsWith('.node.ts')),
				...filesUnder(path.join(root, 'credentials'), (n) => n.endsWith('.credentials.ts')),
			].map(
				(f) => `dist/${path.relative(root, f).split(path.sep).join('/').replace(/\.ts$/, '.js')}`,
			);
			for (const entry of sources)
				if (!registered.includes(entry)) problems.push(`${entry} is not registered`);
			return problems.length === 0
				? pass(`${registered.length} entries`)
				: fail(problems.join('; '));
		},
	},
	{
		id: 'source',
		title: 'public GitHub repository, homepage and author in package.json',
		run: (root) => {
			const pkg = pkgOf(root);
			const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
			const problems = [];
			if (!/^(git\+)?https:\/\/github\.com\/[\w.-]+\/[\w.-]+?(\.git)?$/.test(url ?? ''))
				problems.push(`repository.url ${JSON.stringify(url)} is not a GitHub repository`);
			if (!pkg.homepage) problems.push('no homepage');
			if (!(pkg.author?.name && pkg.author?.email))
				problems.push('author needs a name and an email');
			return problems.length === 0 ? pass(url) : fail(problems.join('; '));
		},
	},
	{
		id: 'provenance',
		title: 'publishing workflow: GitHub Actions, npm publish --provenance, id-token: write',
		run: (root) => {
			const dir = path.join(root, '.github', 'workflows');
			const files = existsSync(dir) ? readdirSync(dir).filter((n) => /\.ya?ml$/.test(n)) : [];
			for (const name of files) {
				const text = readFileSync(path.join(dir, name), 'utf8').replace(/^\s*#.*$/gm, '');
				const publishes =
					/\bnpm publish\b[^\n]*--provenance\b/.test(text) ||
					(/\bnpm publish\b/.test(text) && /NPM_CONFIG_PROVENANCE:\s*['"]?true/.test(text));
				if (publishes && /id-token:\s*write\b/.test(text) && /runs-on:\s*ubuntu-/.test(text))
					return pass(`.github/workflows/${name}`);
			}
			return fail(
				`no workflow in .github/workflows publishes with --provenance and id-token: write (${files.length} workflow files)`,
			);
		},
	},
	{
		id: 'english',
		title: 'English only: node interface, README and docs have no non-Latin script',
		run: (root) => {
			const files = [
				...filesUnder(path.join(root, 'nodes'), (n) => /\.(ts|json)$/.test(n)),
				...filesUnder(path.join(root, 'credentials'), (n) => /\.(ts|json)$/.test(n)),
				...filesUnder(path.join(root, 'docs'), (n) => n.endsWith('.md')),
				...['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', 'package.json']
					.map((n) => path.join(root, n))
					.filter(existsSync),
			];
			if (!files.some((f) => path.basename(f) === 'README.md')) return fail('no README.md');
			const hits = [];
			for (const file of files) {
				const lines = readFileSync(file, 'utf8').split('\n');
				lines.forEach((line, i) => {
					const m = NON_LATIN_LETTER.exec(line);
					if (m) hits.push(`${path.relative(root, file)}:${i + 1} "${m[0]}"`);
				});
			}
			return hits.length === 0
				? pass(`${files.length} files`)
				: fail(
						hits.slice(0, 5).join(', ') + (hits.length > 5 ? ` and ${hits.length - 5} more` : ''),
					);
		},
	},
	{
		id: 'readme',
		title: 'README documents installation, credentials, operations and examples',
		run: (root) => {
			const file = path.join(root, 'README.md');
			if (!existsSync(file)) return fail('no README.md');
			const headings = readFileSync(file, 'utf8')
				.split('\n')
				.filter((l) => /^#{2,3} /.test(l))
				.join('\n');
			const missing = ['Installation', 'Credentials', 'Operations', 'Examples'].filter(
				(h) => !new RegExp(`^#{2,3} .*${h}`, 'mi').test(headings),
			);
			return missing.length === 0 ? pass() : fail(`no section: ${missing.join(', ')}`);
		},
	},
	{
		id: 'cloud-support',
		title: 'n8n-node cloud-support: eligible (default eslint.config.mjs, strict mode)',
		run: (root) => {
			const file = path.join(root, 'eslint.config.mjs');
			if (!existsSync(file)) return fail('no eslint.config.mjs');
			const normalized = readFileSync(file, 'utf8').replace(/\s+/g, ' ').trim();
			if (normalized !== DEFAULT_ESLINT_CONFIG)
				return fail(`eslint.config.mjs is not n8n's default (${DEFAULT_ESLINT_CONFIG})`);
			if (pkgOf(root).n8n?.strict !== true) return fail('strict mode is off');
			// The CLI's own verdict, when it is installed here.
			const cli = path.join(root, 'tools', 'n8n-node-cli', 'node_modules', '.bin', 'n8n-node');
			if (!existsSync(cli)) return pass('checked as the CLI does (CLI not installed here)');
			const result = spawnSync(cli, ['cloud-support'], {
				cwd: root,
				encoding: 'utf8',
				env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
				timeout: 120_000,
			});
			// eslint-disable-next-line no-control-regex -- strips the CLI's colour codes (ESC [ ... m)
			const output = `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
			return /Status: eligible/.test(output)
				? pass('n8n-node cloud-support: eligible')
				: fail(
						`n8n-node cloud-support says: ${
							output
								.split('\n')
								.find((l) => /Status:/.test(l))
								?.trim() ?? output.trim().slice(0, 200)
						}`,
					);
		},
	},
	{
		id: 'lint',
		title:
			"official lint (@n8n/node-cli's config, as n8n-node lint runs it) on nodes/, credentials/, package.json",
		run: async (root, shared) => {
			const results = await officialLint(root, shared);
			const errors = results.flatMap((r) =>
				r.messages
					.filter((m) => m.severity === 2)
					.map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.ruleId ?? m.message}`),
			);
			return errors.length === 0
				? pass(`${results.length} files`)
				: fail(
						errors.slice(0, 5).join(', ') +
							(errors.length > 5 ? ` and ${errors.length - 5} more` : ''),
					);
		},
	},
	{
		id: 'security',
		title:
			'no environment, file-system, network or process access, eval or secrets (scanner rules, enabled and clean)',
		run: async (root, shared) => {
			const { buildScanConfig } = await import('@n8n/scan-community-package/scanner/scanner.mjs');
			const enabled = new Set(
				(await buildScanConfig()).flatMap((block) =>
					Object.entries(block.rules ?? {})
						.filter(([, level]) => [2, 'error'].includes(Array.isArray(level) ? level[0] : level))
						.map(([rule]) => rule),
				),
			);
			const off = SECURITY_RULES.filter((rule) => !enabled.has(rule));
			if (off.length) return fail(`the scanner no longer enforces ${off.join(', ')}`);
			const hits = (await officialLint(root, shared)).flatMap((r) =>
				r.messages
					.filter((m) => SECURITY_RULES.includes(m.ruleId))
					.map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.ruleId}`),
			);
			return hits.length === 0
				? pass(`${SECURITY_RULES.length} rules`)
				: fail(hits.slice(0, 5).join(', '));
		},
	},
	{
		id: 'scan-source',
		title: 'scanner (@n8n/scan-community-package) on the source',
		run: async (root) => {
			const { analyzePackage, SOURCE_FILE_PATTERNS } =
				await import('@n8n/scan-community-package/scanner/scanner.mjs');
			const result = await analyzePackage(root, SOURCE_FILE_PATTERNS);
			return result.passed ? pass() : fail(`${result.message}\n${result.details ?? ''}`);
		},
	},
	{
		id: 'scan-packed',
		title: 'scanner on the tarball npm pack makes (needs npm run build)',
		run: (root) => {
			const { main } = pkgOf(root);
			const n8n = pkgOf(root).n8n ?? {};
			const missing = [...(n8n.nodes ?? []), ...(n8n.credentials ?? [])].filter(
				(f) => !existsSync(path.join(root, f)),
			);
			if (missing.length) return fail(`not built: ${missing[0]} missing (run npm run build)`);
			if (main && !existsSync(path.join(root, main))) return fail(`main ${main} missing`);
			const newest = (dir) =>
				Math.max(0, ...filesUnder(dir, (n) => n.endsWith('.ts')).map((f) => statSync(f).mtimeMs));
			const built = Math.min(
				...[...(n8n.nodes ?? []), ...(n8n.credentials ?? [])].map(
					(f) => statSync(path.join(root, f)).mtimeMs,
				),
			);
			if (
				Math.max(newest(path.join(root, 'nodes')), newest(path.join(root, 'credentials'))) > built
			)
				return fail('dist/ is older than the sources (run npm run build)');
			const result = spawnSync(
				process.execPath,
				[path.join(here, 'scan-package.mjs'), '--packed'],
				{ cwd: root, encoding: 'utf8' },
			);
			return result.status === 0 ? pass() : fail(`${result.stdout}${result.stderr}`.trim());
		},
	},
];

/** One ESLint run with the repo's eslint.config.mjs over the package's files, shared by two checks. */
async function officialLint(root, shared) {
	shared.lint ??= (async () => {
		const { ESLint } = await import(
			pathToFileURL(path.join(root, 'node_modules', 'eslint', 'lib', 'api.js')).href
		).catch(() => import('eslint'));
		const eslint = new ESLint({ cwd: root });
		return eslint.lintFiles(PACKAGE_FILES.filter((f) => existsSync(path.join(root, f))));
	})();
	return shared.lint;
}

/**
 * Runs the checks against `root`; prints one line each; resolves to the number of failures.
 * @param {string} root
 * @param {{ only?: string[], log?: (line: string) => void }} [options]
 */
export async function verify(root, { only, log = console.log } = {}) {
	const selected = only ? checks.filter((c) => only.includes(c.id)) : checks;
	const unknown = (only ?? []).filter((id) => !checks.some((c) => c.id === id));
	if (unknown.length)
		throw new Error(
			`unknown check: ${unknown.join(', ')} (known: ${checks.map((c) => c.id).join(', ')})`,
		);
	const shared = {};
	let failures = 0;
	for (const check of selected) {
		let outcome;
		try {
			outcome = await check.run(root, shared);
		} catch (error) {
			outcome = fail(`${error.name}: ${error.message}`);
		}
		if (!outcome.ok) failures++;
		const detail = outcome.detail
			? ` (${outcome.detail.replace(/\s*\n\s*/g, ' | ').slice(0, 600)})`
			: '';
		log(`${outcome.ok ? 'PASS' : 'FAIL'} ${check.id.padEnd(13)} ${check.title}${detail}`);
	}
	log(`${selected.length - failures} passed, ${failures} failed`);
	return failures;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const args = process.argv.slice(2);
	const value = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
	const root = path.resolve(value('--root') ?? repoRoot);
	const only = value('--only')?.split(',').filter(Boolean);
	if (
		root === repoRoot &&
		(!only || only.some((id) => ['lint', 'security', 'cloud-support'].includes(id)))
	) {
		const { ensureNodeCli } = await import('./ensure-node-cli.mjs');
		ensureNodeCli();
	}
	try {
		process.exitCode = (await verify(root, { only })) > 0 ? 1 : 0;
	} catch (error) {
		console.error(error.message);
		process.exitCode = 2;
	}
}
