/**
 * File names drift: every file the guides and the code's comments name exists in the repository
 * (a bare name somewhere in it, a path at that path or as the end of one). The changelog is left
 * out (it records what was), and so are files of other projects (n8n's source, npm packages).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { proseLines } from './markdown';

const root = path.resolve(__dirname, '../..');
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
	cwd: root,
	encoding: 'utf8',
})
	.split('\n')
	.filter(Boolean);
const basenames = new Set(tracked.map((file) => path.basename(file)));

const FILE = /^[\w.@-]+(?:\/[\w.@-]+)*\.(?:ts|mjs|js|json|md|yml|svg|png)$/;
/** Files of other projects that the texts name on purpose. */
const ELSEWHERE =
	/^(?:packages\/|node_modules\/|dist\/|\.n8n\/|\.bench\/|\.n8n-local\/|reports\/|~|n8n-workflow|@n8n\/)|(?:^|\/)(?:index\.d\.ts|package-lock\.json)$|\.d\.ts$|^[\w-]+\.(?:node|credentials)\.(?:ts|js)$|^n8n-nodes-document-scanning-<version>/;

function exists(name: string): boolean {
	const clean = name.replace(/^(?:\.\.?\/)+/, '').replace(/:\d+$/, '');
	if (!clean.includes('/')) return basenames.has(clean);
	return tracked.some((file) => file === clean || file.endsWith(`/${clean}`));
}

function named(text: string): string[] {
	const names = new Set<string>();
	for (const match of text.matchAll(/`([^`\s]+)`/g)) if (FILE.test(match[1])) names.add(match[1]);
	return [...names];
}

function missing(names: string[]): string[] {
	return names.filter((name) => !ELSEWHERE.test(name) && !exists(name));
}

const guides = [
	'README.md',
	'CONTRIBUTING.md',
	...tracked.filter((f) => /^docs\/[^/]+\.md$/.test(f)),
];

test.each(guides)('%s names only files that exist', (file) => {
	const prose = proseLines(readFileSync(path.join(root, file), 'utf8'))
		.map(({ line }) => line)
		.join('\n');
	expect(missing(named(prose))).toEqual([]);
});

/** Comment text of a source file: `//` lines and block comments. */
function comments(source: string): string {
	const parts: string[] = [];
	for (const match of source.matchAll(/\/\*[\s\S]*?\*\/|(?:^|\s)\/\/[^\n]*/g)) parts.push(match[0]);
	return parts.join('\n');
}

const sources = tracked.filter(
	(file) =>
		/^(nodes|credentials|sandbox|tools|test)\//.test(file) &&
		/\.(ts|mjs|js)$/.test(file) &&
		!file.includes('node_modules') &&
		!file.startsWith('tools/n8n-node-cli/'),
);

test("the code's comments name only files that exist", () => {
	const wrong: string[] = [];
	for (const file of sources) {
		const text = comments(readFileSync(path.join(root, file), 'utf8'));
		const names = [...text.matchAll(/(?<![\w./-])[\w-][\w.-]*(?:\/[\w.-]+)*\.(?:ts|mjs)\b/g)].map(
			(m) => m[0],
		);
		for (const name of missing(names)) wrong.push(`${file}: ${name}`);
	}
	expect(wrong).toEqual([]);
});

test('the checker notices a file that is not there (the old control-routes.ts)', () => {
	expect(missing(['control-routes.ts', 'sandbox/control/routes.ts'])).toEqual([
		'control-routes.ts',
	]);
});
