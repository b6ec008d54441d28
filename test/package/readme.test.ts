/**
 * The README is the user guide: short, commands on its first screen, the tested manual install,
 * and links that lead somewhere. Developer material lives in CONTRIBUTING.md and docs/.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { githubAnchors, headings, linkTargets } from './markdown';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const readme = read('README.md');

test('fits on a few screens: at most 400 lines', () => {
	expect(readme.split('\n').length).toBeLessThanOrEqual(400);
});

test('its first screen says what the package does and gives the two commands, npm start and npm test', () => {
	const firstScreen = readme.split('\n').slice(0, 25).join('\n');
	expect(firstScreen).toContain('Document Scanning API');
	for (const command of ['npm start', 'npm test']) expect(firstScreen).toContain(command);
	// Developer commands (e2e, bench, mutation) are CONTRIBUTING's.
	expect(firstScreen).not.toContain('npm run e2e');
});

test("gives the manual install with --omit=peer in n8n's nodes folder", () => {
	// The e2e (tools/e2e/checks/manual-install.mjs) runs the same steps: a package.json in the
	// nodes folder, then this exact install command.
	expect(readme).toContain(
		'cd ~/.n8n/nodes\n[ -f package.json ] || echo \'{"name":"installed-nodes","private":true}\' > package.json\nnpm install n8n-nodes-document-scanning --omit=peer\n',
	);
});

test('has the sections users look for', () => {
	const titles = headings(readme);
	for (const title of [
		'Installation',
		'Manual install',
		'Your first workflow',
		'Compatibility',
		'Credentials',
		'Operations',
		'Document Scanning Trigger',
		'Document Scanning Poll Trigger',
		'Batches and waiting',
		'Limits',
		'Scaling out',
		'Troubleshooting',
		'Security',
		'Version history',
	]) {
		expect(titles).toContain(title);
	}
	expect(readme).toContain('WEBHOOK_URL');
	expect(readme).toContain('N8N_PROXY_HOPS');
	expect(readme).toContain('Business');
});

test.each(['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'])(
	'%s: no heading refers to documents a reader does not have',
	(file) => {
		for (const title of headings(read(file)))
			expect(title).not.toMatch(/\b(spec|issue|contract)\b/i);
	},
);

test.each([
	'README.md',
	'CONTRIBUTING.md',
	'CHANGELOG.md',
	'docs/reference.md',
	'docs/sandbox.md',
	'docs/local-n8n.md',
	'docs/design.md',
	'docs/benchmarks.md',
	'docs/releasing.md',
	'docs/verification.md',
])('%s: relative links point at files and headings that exist', (file) => {
	const dir = path.dirname(path.join(root, file));
	for (const target of linkTargets(read(file))) {
		if (/^[a-z]+:/i.test(target)) continue;
		const [targetPath, anchor] = target.split('#');
		const resolved = targetPath ? path.resolve(dir, targetPath) : path.join(root, file);
		expect({ target, exists: existsSync(resolved) }).toEqual({ target, exists: true });
		if (anchor && resolved.endsWith('.md')) {
			expect({ target, anchor: githubAnchors(readFileSync(resolved, 'utf8')).has(anchor) }).toEqual(
				{ target, anchor: true },
			);
		}
	}
});

test('the screenshots it shows are the ones the editor check saves, and they are PNG files', () => {
	const images = linkTargets(readme).filter((target) => target.endsWith('.png'));
	expect(images.sort()).toEqual([
		'docs/images/review-workflow.png',
		'docs/images/trigger.png',
		'docs/images/upload-operation.png',
		'docs/images/workflow-canvas.png',
	]);
	for (const image of images) {
		expect(readFileSync(path.join(root, image)).subarray(1, 4).toString('latin1')).toBe('PNG');
	}
});

test('CHANGELOG has a section for the version in package.json', () => {
	const { version } = JSON.parse(read('package.json'));
	expect(read('CHANGELOG.md')).toMatch(
		new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\]`, 'm'),
	);
});
