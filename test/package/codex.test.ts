/**
 * The metadata n8n shows and verifies next to the nodes: the codex files (nodes/<Node>/<Node>.node.json)
 * and the credential's documentation link. Categories come from n8n's fixed list, and every
 * documentation URL points at a section of this repository's README that exists.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

import { githubAnchors } from './markdown';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

/** The categories n8n's nodes panel knows ("Node codex files" in n8n's node-building docs). */
const N8N_CATEGORIES = [
	'Analytics',
	'Communication',
	'Data & Storage',
	'Development',
	'Finance & Accounting',
	'Marketing & Content',
	'Miscellaneous',
	'Productivity',
	'Sales',
	'Utility',
];

const repoUrl = String(pkg.repository.url)
	.replace(/^git\+/, '')
	.replace(/\.git$/, '');
const readmeAnchors = githubAnchors(readFileSync(path.join(root, 'README.md'), 'utf8'));

function anchorOf(url: string): string {
	expect(url.startsWith(`${repoUrl}#`)).toBe(true);
	return url.slice(repoUrl.length + 1);
}

const codexFiles = readdirSync(path.join(root, 'nodes'))
	.map((folder) => path.join('nodes', folder, `${folder}.node.json`))
	.filter((file) => existsSync(path.join(root, file)));

describe('package metadata n8n reads', () => {
	test('repository, homepage and bugs point at the same GitHub repository; the author has a name and an email', () => {
		expect(repoUrl).toMatch(/^https:\/\/github\.com\/[^/]+\/n8n-nodes-document-scanning$/);
		expect(pkg.homepage).toBe(`${repoUrl}#readme`);
		expect(pkg.bugs.url).toBe(`${repoUrl}/issues`);
		expect(pkg.author.name).toEqual(expect.any(String));
		expect(pkg.author.email).toMatch(/^[^@\s]+@[^@\s]+$/);
		expect(pkg.n8n.strict).toBe(true);
	});

	test('the README anchors are computed the way GitHub does', () => {
		const anchors = githubAnchors(
			'# A b\n## Scan → Upload\n```\n# not a heading\n```\n## A b\n### `npm start`, flags\n',
		);
		expect([...anchors]).toEqual(['a-b', 'scan--upload', 'a-b-1', 'npm-start-flags']);
	});
});

describe('codex files', () => {
	test('every node declared in package.json has one', () => {
		expect(codexFiles.length).toBe((pkg.n8n.nodes as string[]).length);
		for (const node of pkg.n8n.nodes as string[]) {
			const source = node.replace(/^dist\//, '').replace(/\.js$/, '.json');
			expect(codexFiles).toContain(source);
		}
	});

	test.each(codexFiles)("%s: node type, version, categories from n8n's list", (file) => {
		const codex = JSON.parse(readFileSync(path.join(root, file), 'utf8'));
		const folder = path.basename(path.dirname(file));
		expect(codex.node).toBe(`${pkg.name}.${folder[0].toLowerCase()}${folder.slice(1)}`);
		expect(codex.nodeVersion).toBe('1.0');
		expect(codex.codexVersion).toBe('1.0');
		expect(codex.categories.length).toBeGreaterThan(0);
		for (const category of codex.categories) expect(N8N_CATEGORIES).toContain(category);
	});

	test.each(codexFiles)('%s: documentation URLs point at README sections that exist', (file) => {
		const codex = JSON.parse(readFileSync(path.join(root, file), 'utf8'));
		const urls = [
			...codex.resources.primaryDocumentation,
			...codex.resources.credentialDocumentation,
		].map((entry: { url: string }) => entry.url);
		expect(urls.length).toBeGreaterThanOrEqual(2);
		for (const url of urls) expect(readmeAnchors).toContain(anchorOf(url));
	});
});

test("the credential's documentation URL points at a README section that exists", () => {
	const dir = path.join(root, 'credentials');
	const urls = readdirSync(dir)
		.filter((name) => name.endsWith('.credentials.ts'))
		.map(
			(name) =>
				/documentationUrl\s*=\s*'([^']+)'/.exec(readFileSync(path.join(dir, name), 'utf8'))?.[1],
		);
	expect(urls.length).toBeGreaterThan(0);
	for (const url of urls) expect(readmeAnchors).toContain(anchorOf(String(url)));
});
