/**
 * Statements in the docs that drift when the code changes, checked against the code: what CI runs,
 * defaults stated in prose, counts and limits, and figures. (Defaults in tables: readme-defaults
 * and reference-defaults; file names: doc-paths; benchmark figures: test/tools/bench-results.)
 * Left to review: what a mechanism does and why, and the wording of messages in prose.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { INodeType } from 'n8n-workflow';

import { DEFAULT_CONCURRENCY } from '../../nodes/DocumentScanning/execution/scope';
import { MAX_UPLOAD_BYTES } from '../../nodes/DocumentScanning/upload/binary';
import { SERVICE_HOURLY_LIMIT } from '../../nodes/DocumentScanning/upload/budget/window';
import { FINGERPRINT_BY_DEFAULT_FROM } from '../../nodes/DocumentScanning/upload/prepare';
import { LISTING_MAX_PAGES } from '../../nodes/DocumentScanning/upload/scanPages';
import { UPLOAD_ATTEMPTS } from '../../nodes/DocumentScanning/upload/send';
import { FOLLOW_MAX_PAGES } from '../../nodes/DocumentScanningPollTrigger/follow';
import {
	ACTIVATION_MAX_PAGES,
	MAX_SINGLE_FETCHES,
	MAX_WHOLE_READS,
} from '../../nodes/DocumentScanningPollTrigger/listing';
import { MAX_PENDING } from '../../nodes/DocumentScanningPollTrigger/state';
import { FINGERPRINT_LENGTH } from '../../nodes/shared/scans/fileName';
import { MAX_PAGES, PAGE_SIZE } from '../../nodes/shared/transport/paging';
import {
	ACTION_NODE_TYPE,
	loadPackage,
	POLL_TRIGGER_NODE_TYPE,
	TRIGGER_NODE_TYPE,
} from '../support/package';
import { agrees, parametersNamed, parametersOf } from './documented-defaults';
import { proseLines } from './markdown';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
/** Prose outside code blocks as one line: line breaks are only layout. */
const prose = (file: string) =>
	proseLines(read(file))
		.map(({ line }) => line)
		.join('\n')
		.replace(/\s+/g, ' ');
/** The changelog's part that describes this release (released sections record what was). */
const unreleased = () => {
	const text = read('CHANGELOG.md');
	return text.slice(text.indexOf('## [Unreleased]'), text.indexOf('\n## [', 20));
};

const USER_DOCS = ['README.md', 'docs/reference.md'];
const CONTRIBUTOR_DOCS = [
	'CONTRIBUTING.md',
	'docs/design.md',
	'docs/sandbox.md',
	'docs/local-n8n.md',
	'docs/verification.md',
	'docs/releasing.md',
];
const GUIDES = [...USER_DOCS, ...CONTRIBUTOR_DOCS, 'docs/benchmarks.md'];
const texts = () => [
	...GUIDES.map((file) => ({ file, text: prose(file) })),
	{ file: 'CHANGELOG.md (Unreleased)', text: unreleased().replace(/\s+/g, ' ') },
];
const number = (text: string) => Number(text.replace(/,/g, ''));

describe('what CI runs', () => {
	const steps = [...read('.github/workflows/ci.yml').matchAll(/^\s*run: (.+)$/gm)].map((m) =>
		m[1].trim(),
	);

	test('CONTRIBUTING names exactly the commands of .github/workflows/ci.yml, in their order', () => {
		const text = prose('CONTRIBUTING.md');
		const sentence =
			/`\.github\/workflows\/ci\.yml` runs on every push and pull request: (.*?)\. /.exec(
				text,
			)?.[1];
		expect(sentence).toBeDefined();
		const named = [...sentence!.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
		expect(steps.length).toBeGreaterThan(3);
		expect(named).toEqual(steps);
	});

	test('no doc says CI runs the end-to-end or queue-mode tests: .ci/run does, before a release', () => {
		const ciRun = read('.ci/run');
		expect(ciRun).toMatch(/npm run e2e -- --n8n/);
		expect(ciRun).toMatch(/npm run e2e -- --queue/);
		expect(steps.join('\n')).not.toMatch(/e2e|queue/);
		const claims = texts().flatMap(({ file, text }) =>
			text
				.split(/(?<=[.;:])\s/)
				.filter(
					(s) => /(?<![.\w/])CI\b/.test(s) && /\b(?:e2e|end-to-end|queue|real n8n)\b/i.test(s),
				)
				.filter((s) => !/\bruns no real n8n\b|\.ci\/run/.test(s))
				.map((s) => `${file}: ${s}`),
		);
		expect(claims).toEqual([]);
	});

	test('the checker notices the old wording', () => {
		const s = 'CI runs the end-to-end tests on both versions above.';
		expect(/(?<![.\w/])CI\b/.test(s) && /\bend-to-end\b/.test(s)).toBe(true);
	});
});

describe('defaults stated in prose', () => {
	let parameters: ReturnType<typeof parametersOf>;
	beforeAll(async () => {
		const { nodeTypes } = await loadPackage();
		parameters = [ACTION_NODE_TYPE, TRIGGER_NODE_TYPE, POLL_TRIGGER_NODE_TYPE].flatMap((type) =>
			parametersOf(nodeTypes.getByNameAndVersion(type) as INodeType),
		);
	});

	/** `(\`name\`, default X` and `**Name** (default X`, with "and most" / "the" allowed. */
	function statedDefaults(text: string): Array<{ option: string; stated: string }> {
		const found: Array<{ option: string; stated: string }> = [];
		for (const m of text.matchAll(
			/\(`(\w+)`,? (?:the )?default (?:and most )?\*{0,2}(`[^`]*`|[\w.]+)/g,
		))
			found.push({ option: `(\`${m[1]}\``, stated: m[2] });
		for (const m of text.matchAll(
			/\*\*([A-Z][\w ]*(?:\(Seconds\))?)\*\*\s*\((?:the )?default (?:and most )?\*{0,2}(`[^`]*`|[\w.]+)/g,
		))
			found.push({ option: `**${m[1]}**`, stated: m[2] });
		return found;
	}

	test('every "(`name`, default X)" and "**Name** (default X)" is the parameter default', () => {
		const wrong: string[] = [];
		let checked = 0;
		for (const { file, text } of texts()) {
			for (const { option, stated } of statedDefaults(text)) {
				const named = parametersNamed(option, parameters);
				if (named.length === 0) continue; // an n8n setting or a credential field, not a node parameter
				checked++;
				for (const parameter of named)
					if (!agrees(stated, parameter)) wrong.push(`${file}: ${option} default ${stated}`);
			}
		}
		expect(wrong).toEqual([]);
		expect(checked).toBeGreaterThanOrEqual(5);
	});

	test("Concurrency's default where the docs explain it", () => {
		const stated = texts().flatMap(({ file, text }) =>
			[
				...text.matchAll(
					/\bWhy (\d+):|\bThe default and most, (\d+)|Concurrency's default now (\d+)/g,
				),
			].map((m) => ({ file, value: Number(m[1] ?? m[2] ?? m[3]) })),
		);
		expect(stated.length).toBeGreaterThanOrEqual(2);
		for (const { file, value } of stated)
			expect({ file, value }).toEqual({ file, value: DEFAULT_CONCURRENCY });
	});

	test('the checker notices the old "Why 32"', () => {
		const [parameter] = parametersNamed('**Concurrency**', parameters);
		expect(agrees('32', parameter)).toBe(false);
		expect(statedDefaults('**Concurrency** (default and most 64)')).toEqual([
			{ option: '**Concurrency**', stated: '64' },
		]);
	});
});

describe('counts and limits', () => {
	const all = () => texts();

	test('"N pages (M scans)": a page cap of the code, and M = N × the page size', () => {
		const caps = [MAX_PAGES, LISTING_MAX_PAGES, FOLLOW_MAX_PAGES, ACTIVATION_MAX_PAGES];
		const found = all().flatMap(({ file, text }) =>
			[...text.matchAll(/\b(\d[\d,]*) pages \((\d[\d,]*) (?:scans|records)/g)].map((m) => ({
				file,
				pages: number(m[1]),
				records: number(m[2]),
			})),
		);
		expect(found.length).toBeGreaterThanOrEqual(3);
		for (const f of found) {
			expect({ ...f, cap: caps.includes(f.pages) }).toEqual({ ...f, cap: true });
			expect({ ...f, size: f.records / f.pages }).toEqual({ ...f, size: PAGE_SIZE });
		}
	});

	test("the README's limits are the code's", () => {
		const readme = prose('README.md');
		const row = (name: string) => new RegExp(`\\| ${name} \\| ([^|]+) \\|`).exec(readme)?.[1] ?? '';
		expect(row('File size')).toContain(`${MAX_UPLOAD_BYTES / 1024 / 1024} MB per document`);
		expect(row('Rate')).toContain(`${SERVICE_HOURLY_LIMIT} uploads per rolling hour`);
		const listing = row('Listing');
		expect(listing).toContain(`${PAGE_SIZE} scans per page`);
		expect(listing).toContain(
			`Return All up to ${(MAX_PAGES * PAGE_SIZE).toLocaleString('en-US')} scans`,
		);
		expect(listing).toContain(
			`up to ${(LISTING_MAX_PAGES * PAGE_SIZE).toLocaleString('en-US')} per template`,
		);
	});

	test("the poll trigger's and the webhook trigger's bounds, the upload's attempts and fingerprint", () => {
		const design = prose('docs/design.md');
		const claims: Array<[RegExp, number]> = [
			[/at most (\d[\d,]*) pages past the newest scan/, FOLLOW_MAX_PAGES],
			[/(\d+) single reads of followed scans/, MAX_SINGLE_FETCHES],
			[/(\d+) reads of finished scans listed without every/, MAX_WHOLE_READS],
			[/at most (\d[\d,]*) followed \(unfinished\) scans/, MAX_PENDING],
			[/at most (\d+) attempts/, UPLOAD_ATTEMPTS],
			[/the first (\d+) hex digits/, FINGERPRINT_LENGTH],
			[/the default from node version ([\d.]+)/, FINGERPRINT_BY_DEFAULT_FROM],
		];
		for (const [pattern, value] of claims)
			expect({
				pattern: String(pattern),
				stated: number(pattern.exec(design)?.[1] ?? 'NaN'),
			}).toEqual({
				pattern: String(pattern),
				stated: value,
			});
	});

	test('polls: n8n allows at most one a minute, and no doc says "at least once a minute"', () => {
		const wrong = all().filter(({ text }) =>
			/at least (?:once )?(?:a|every|per) minute/i.test(text),
		);
		expect(wrong.map((w) => w.file)).toEqual([]);
		expect(prose('README.md')).toMatch(/at most once a minute/);
	});

	test('a retry at `retryAfter` is not promised to succeed: the hour counts every client of the account', () => {
		for (const file of USER_DOCS)
			expect({ file, promise: /retry[^.]{0,60}\bsucceeds\b/i.test(prose(file)) }).toEqual({
				file,
				promise: false,
			});
	});

	test('IDs: the docs give the largest one the action node reads exactly', () => {
		for (const file of USER_DOCS) expect(prose(file)).toContain(String(Number.MAX_SAFE_INTEGER));
	});
});

test('the contributor docs stay readable in one sitting: CONTRIBUTING and docs/ without the reference, at most 1,200 lines', () => {
	const files = [
		'CONTRIBUTING.md',
		...readdirSync(path.join(root, 'docs'))
			.filter((f) => f.endsWith('.md') && f !== 'reference.md')
			.map((f) => `docs/${f}`),
	];
	const lines = files.reduce((sum, file) => sum + read(file).trimEnd().split('\n').length, 0);
	expect({ files: files.length, lines, atMost: lines <= 1200 }).toEqual({
		files: files.length,
		lines,
		atMost: true,
	});
});

describe('figures', () => {
	const FIRST_RUN = /about 5–6 minutes and about 3 GB/; // tools/constants.mjs, test/tools/doc-figures

	test('no run time or ratio in CONTRIBUTING and docs/ outside benchmarks.md and the reference', () => {
		const measured =
			/\d(?:\.\d+)?×|\b(?:measured|took|takes|ran in|finished in|in about)\b[^.]{0,40}?\d[\d.,]*\s?(?:ms|s|min|minutes|seconds|hours|GB|MB)\b/gi;
		const found = CONTRIBUTOR_DOCS.flatMap((file) =>
			[...prose(file).replace(FIRST_RUN, '').matchAll(measured)].map((m) => `${file}: ${m[0]}`),
		);
		expect(found).toEqual([]);
	});

	test('the checker notices a measured time and a ratio', () => {
		const measured =
			/\d(?:\.\d+)?×|\b(?:measured|took|takes|ran in|finished in|in about)\b[^.]{0,40}?\d[\d.,]*\s?(?:ms|s|min|minutes|seconds|hours|GB|MB)\b/gi;
		expect('the batch took 1.33× the processing time'.match(measured)).not.toBeNull();
		expect('Measured on the 2-core machine: 251 s'.match(measured)).not.toBeNull();
		expect('a 30 s latency fault'.match(measured)).toBeNull();
	});
});
