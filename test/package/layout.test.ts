/**
 * The layout of the shipped code holds (see "Layout" in CONTRIBUTING.md): every file in nodes/
 * and credentials/ is at most 300 lines; a node folder imports only itself and nodes/shared/
 * (never a sibling node folder), nodes/shared/ imports no node folder; relative imports
 * (`import type` included) form no cycle; and the last-page rule is written in one place.
 *
 * LAYOUT_ROOT=<folder> checks another checkout (e.g. an older commit unpacked with `git archive`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = process.env.LAYOUT_ROOT
	? path.resolve(process.env.LAYOUT_ROOT)
	: path.resolve(__dirname, '../..');
const MAX_LINES = 300;
const SHARED = 'shared';

function walk(dir: string): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir).flatMap((name) => {
		const full = path.join(dir, name);
		return statSync(full).isDirectory() ? walk(full) : [full];
	});
}

const sources = [...walk(path.join(root, 'nodes')), ...walk(path.join(root, 'credentials'))].filter(
	(file) => file.endsWith('.ts'),
);
const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');

/** Relative imports and re-exports of a file, resolved to files (`import type` included). */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const specs = [...text.matchAll(/\b(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']*)'/g)].map(
		(match) => match[1],
	);
	return specs.flatMap((spec) => {
		const base = path.resolve(path.dirname(file), spec);
		const found = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) =>
			existsSync(candidate),
		);
		return found ? [found] : [];
	});
}

function withoutComments(text: string): string {
	return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** The folder directly under nodes/ a file lives in (undefined outside nodes/). */
function nodeFolder(file: string): string | undefined {
	const parts = rel(file).split('/');
	return parts[0] === 'nodes' && parts.length > 2 ? parts[1] : undefined;
}

const graph = new Map(sources.map((file) => [file, importsOf(file)]));

/** Every import cycle, each as the list of files around it (first file repeated at the end). */
export function cyclesOf(edges: Map<string, string[]>): string[][] {
	const cycles: string[][] = [];
	const state = new Map<string, 'open' | 'done'>();
	const stack: string[] = [];
	const visit = (file: string) => {
		state.set(file, 'open');
		stack.push(file);
		for (const next of edges.get(file) ?? []) {
			if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
			else if (!state.has(next)) visit(next);
		}
		stack.pop();
		state.set(file, 'done');
	};
	for (const file of edges.keys()) if (!state.has(file)) visit(file);
	return cycles;
}

describe('layout of nodes/ and credentials/', () => {
	it('finds the sources', () => {
		expect(sources.length).toBeGreaterThan(20);
		expect(sources.map(rel)).toContain('nodes/shared/transport/listingReader.ts');
	});

	it(`no file is over ${MAX_LINES} lines`, () => {
		const long = sources
			.map((file) => ({
				file: rel(file),
				lines: readFileSync(file, 'utf8').split('\n').length - 1,
			}))
			.filter(({ lines }) => lines > MAX_LINES);
		expect(long).toEqual([]);
	});

	it('a node folder imports only itself and nodes/shared/; nodes/shared/ imports no node folder', () => {
		const crossing: string[] = [];
		for (const [file, targets] of graph) {
			const from = nodeFolder(file);
			for (const target of targets) {
				const to = nodeFolder(target);
				if (from === undefined || to === undefined || from === to || to === SHARED) continue;
				crossing.push(`${rel(file)} -> ${rel(target)}`);
			}
		}
		expect(crossing).toEqual([]);
	});

	it('relative imports form no cycle', () => {
		expect(cyclesOf(graph).map((cycle) => cycle.map(rel).join(' -> '))).toEqual([]);
	});

	it('the cycle check finds a cycle (self-test)', () => {
		const edges = new Map([
			['a', ['b']],
			['b', ['c']],
			['c', ['a']],
			['d', ['a']],
		]);
		expect(cyclesOf(edges)).toEqual([['a', 'b', 'c', 'a']]);
	});

	it('the last-page rule is written once (only listingPages.ts reads `per_page`)', () => {
		const readers = sources
			.filter((file) => /\.per_page\b/.test(withoutComments(readFileSync(file, 'utf8'))))
			.map(rel);
		expect(readers).toEqual(['nodes/shared/transport/listingPages.ts']);
	});

	it('each trigger keeps its parameters in description.ts', () => {
		for (const node of ['DocumentScanningTrigger', 'DocumentScanningPollTrigger']) {
			const nodeFile = readFileSync(path.join(root, 'nodes', node, `${node}.node.ts`), 'utf8');
			expect(existsSync(path.join(root, 'nodes', node, 'description.ts'))).toBe(true);
			expect(nodeFile).toMatch(/^\t\tproperties,$/m);
		}
	});
});
