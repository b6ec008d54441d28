// The figures of docs/benchmarks/results.json as the docs quote them: the tables of
// docs/benchmarks.md (between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`) and the README's
// one line. `npm run bench -- --save` runs this after saving; by hand:
//
//   node tools/bench/report.mjs           rewrite the blocks of docs/benchmarks.md and the README line
//   node tools/bench/report.mjs --check   exit 1 when a doc does not quote the results file
//
// test/tools/bench-results.test.mjs checks the same. Every table cell comes from the file; a part
// measured while the machine's load average was above its number of cores says so in its row.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { saveParts } from './results-file.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RESULTS = path.join(ROOT, 'docs', 'benchmarks', 'results.json');
export const PAGE = path.join(ROOT, 'docs', 'benchmarks.md');
export const README = path.join(ROOT, 'README.md');
/** The README's line with the headline figures starts with this. */
export const HEADLINE_START = '**Measured**';

/** @typedef {{ min: number, mean: number, max: number, cores: number }} Load */
/** @typedef {{ date: string, command: string, machine: string, node: string, n8n: string, loadAverage: Load, figures: any }} Part */

export function readResults(file = RESULTS) {
	return /** @type {{ parts: Record<string, Part> }} */ (JSON.parse(readFileSync(file, 'utf8')));
}

const x = (value) => `${fixed(value)}×`;
const fixed = (value) => (typeof value === 'number' ? String(Math.round(value * 100) / 100) : '–');
const ms = (value) =>
	typeof value === 'number' ? `${Math.round(value).toLocaleString('en-US')} ms` : '–';
const mb = (value) => `${fixed(value)} MB`;

/** "2026-11-26, load 1.2 (2 cores)", with "under load" when the mean load exceeded the cores. */
export function when(part) {
	const load = part.loadAverage;
	const heavy = load.mean > load.cores;
	return `${part.date.slice(0, 10)}, load ${fixed(load.mean)} (${fixed(load.min)}–${fixed(load.max)}) on ${load.cores} cores${heavy ? ', **under load**' : ''}`;
}

/** Real-n8n parts of a kind, one per line, in version order. */
function realParts(results, kind) {
	return Object.entries(results.parts)
		.filter(([name]) => name.startsWith('real-') && name.endsWith(`-${kind}`))
		.map(([name, part]) => ({ version: name.slice('real-'.length, -`-${kind}`.length), part }))
		.sort((a, b) => a.version.localeCompare(b.version, 'en', { numeric: true }));
}

function table(header, rows) {
	return [
		`| ${header.join(' | ')} |`,
		`|${header.map(() => '---').join('|')}|`,
		...rows.map((row) => `| ${row.join(' | ')} |`),
	].join('\n');
}

function realBatch(results) {
	const rows = [];
	for (const { version, part } of realParts(results, 'batch')) {
		const sizes = [...new Set(part.figures.map((f) => f.uploads))].sort((a, b) => a - b);
		for (const uploads of sizes) {
			const node = part.figures.find((f) => f.kind === 'node' && f.uploads === uploads);
			const diy = part.figures.find((f) => f.kind === 'diy' && f.uploads === uploads);
			if (!node || !diy) continue;
			rows.push([
				`n8n ${version}`,
				`${uploads.toLocaleString('en-US')}${node.executions > 1 ? ` (${node.executions} hourly runs)` : ''}`,
				`**${x(node.ratioToProcessing)}**`,
				x(diy.ratioToProcessing),
				x(node.wallMs / diy.wallMs),
				`${ms(node.uploadSpanMs)} / ${ms(diy.uploadSpanMs)}`,
				`${ms(node.deliveryP50Ms)} / ${ms(diy.deliveryP50Ms)}`,
				`${fixed(node.requestsPerDocument)} / ${fixed(diy.requestsPerDocument)}`,
				node.complete && diy.complete ? 'yes' : '**no**',
				when(part),
			]);
		}
	}
	return table(
		[
			'n8n',
			'documents',
			'ours: time ÷ processing time',
			'do-it-yourself',
			'ours ÷ do-it-yourself',
			'uploads took (ours / diy)',
			'held after the service finished, p50 (ours / diy)',
			'requests per document (ours / diy)',
			'every scan, in order',
			'measured',
		],
		rows,
	);
}

function realMemory(results) {
	const rows = realParts(results, 'memory').flatMap(({ version, part }) =>
		part.figures.map((f) => [
			`n8n ${version}`,
			`${f.files} × ${f.fileMb} MB, Concurrency ${f.concurrency}`,
			`**+${mb(f.increaseMb.memNode)}** (${f.runs.memNode.map((r) => r.increaseMb).join(', ')})`,
			`+${mb(f.increaseMb.memHttpLoop)} (${f.runs.memHttpLoop.map((r) => r.increaseMb).join(', ')})`,
			`**${x(f.ratios.memHttpLoop)}**`,
			f.increaseMb.memHttpBatching === undefined ? '–' : `+${mb(f.increaseMb.memHttpBatching)}`,
			f.allUploaded ? 'yes' : '**no**',
			when(part),
		]),
	);
	return table(
		[
			'n8n',
			'files',
			'our node: increase of peak RSS (median; each process)',
			'HTTP Request, Loop Over Items batches of 5',
			'ours ÷ HTTP Request',
			'HTTP Request, its own Batching option (one process)',
			'every file uploaded',
			'measured',
		],
		rows,
	);
}

function realListing(results) {
	const rows = [];
	for (const { version, part } of realParts(results, 'returnAll'))
		for (const f of part.figures)
			rows.push([
				`n8n ${version}`,
				`Return All, ${f.scans.toLocaleString('en-US')} scans (${f.pages} pages), ${f.envelope} envelope`,
				`${ms(f.wallMs)} = **${x(f.ratio)}** pages × latency${f.correct ? '' : ', **wrong output**'}`,
				when(part),
			]);
	for (const { version, part } of realParts(results, 'timeout'))
		for (const f of part.figures)
			rows.push([
				`n8n ${version}`,
				`Wait Timeout ${f.waitTimeoutS} s while every read gets 429 + Retry-After: 30, ${f.envelope} envelope`,
				`the item failed after ${ms(f.wallMs)} = **${x(f.ratioToTimeout)}** the timeout`,
				when(part),
			]);
	return table(['n8n', 'figure', 'result', 'measured'], rows);
}

function engineBatch(results) {
	const part = results.parts['engine-batch'];
	if (!part) return '(not measured yet)';
	return [
		`${part.n8n}, ${part.node}; ${when(part)}.`,
		'',
		table(
			[
				'documents',
				'envelope',
				'time ÷ processing time',
				'time ÷ (processing + uploads alone)',
				'uploads alone',
				'GET per document',
				'held after finished, p50 / max',
				'input order',
			],
			part.figures.map((f) => [
				String(f.uploads),
				f.envelope,
				`**${x(f.ratioToProcessing)}**`,
				x(f.ratioToBound),
				ms(f.uploadOnlyMs),
				fixed(f.getsPerDocument),
				`${ms(f.deliveryP50Ms)} / ${ms(f.deliveryMaxMs)}`,
				f.inInputOrder ? 'kept' : '**broken**',
			]),
		),
	].join('\n');
}

function engineReturnAll(results) {
	const part = results.parts['engine-return-all'];
	if (!part) return '(not measured yet)';
	return [
		`${part.n8n}, ${part.node}; ${when(part)}.`,
		'',
		table(
			['scans', 'envelope', 'time', '÷ pages × latency', 'page requests', 'output'],
			part.figures.map((f) => [
				`${f.scans.toLocaleString('en-US')} (${f.pages} pages)`,
				f.envelope,
				ms(f.wallMs),
				`**${x(f.ratio)}**`,
				String(f.pageRequests),
				f.correct ? 'complete, newest first' : '**wrong**',
			]),
		),
	].join('\n');
}

function rerun(results) {
	const part = results.parts.rerun;
	if (!part) return '(not measured yet)';
	return [
		`${part.n8n}, ${part.node}; ${when(part)}.`,
		'',
		table(
			[
				're-run',
				'documents',
				'older scans',
				'scans made since',
				'envelope',
				'template listing requests',
				'hour count requests',
				'uploads (409)',
				'credits used',
				'time',
				'output',
			],
			part.figures.map((f) => [
				f.when,
				String(f.documents),
				f.olderScans.toLocaleString('en-US'),
				f.between.toLocaleString('en-US'),
				f.envelope,
				`**${f.templateListingRequests}** of ${f.pages} pages`,
				String(f.hourListingRequests),
				`${f.uploads} (${f.conflicts})`,
				String(f.creditsUsed),
				ms(f.wallMs),
				f.correct ? 'each its own scan' : '**wrong**',
			]),
		),
	].join('\n');
}

function engineUploadMemory(results) {
	const part = results.parts['engine-upload-memory'];
	if (!part) return '(not measured yet)';
	return [
		`${part.n8n}, ${part.node}; ${when(part)}.`,
		'',
		table(
			['files', 'Concurrency', 'peak Buffer memory ÷ (file size × files in flight)', 'time'],
			part.figures.map((f) => [
				`${f.files} × ${f.fileMb} MB`,
				String(f.concurrency),
				`**${x(f.copiesPerFileInFlight)}**`,
				ms(f.ms),
			]),
		),
	].join('\n');
}

function pollTrigger(results) {
	const part = results.parts['poll-trigger'];
	if (!part) return '(not measured yet)';
	return [
		`${part.n8n}, ${part.node}; ${when(part)}; ${part.figures.olderScans} older scans in the account.`,
		'',
		table(
			['new finished scans since the last poll', 'items', 'requests', 'time of the poll'],
			part.figures.polls.map((f) => [
				f.newScans.toLocaleString('en-US'),
				String(f.items),
				`**${f.requests}**`,
				ms(f.ms),
			]),
		),
	].join('\n');
}

/** Figures of `npm run e2e -- --queue --n8n <version> --save`, one column per n8n line. */
function queue(results) {
	const parts = Object.entries(results.parts)
		.filter(([name]) => name.startsWith('queue-'))
		.map(([name, part]) => ({ version: name.slice('queue-'.length), part }));
	if (parts.length === 0) return '(not measured yet)';
	const names = [...new Set(parts.flatMap(({ part }) => Object.keys(part.figures)))].filter(
		(name) => !name.startsWith('warm-up'),
	);
	return [
		...parts.map(({ version, part }) => `- n8n ${version}: ${part.node}; ${when(part)}.`),
		'',
		table(
			['figure', ...parts.map(({ version }) => `n8n ${version}`)],
			names.map((name) => [name, ...parts.map(({ part }) => String(part.figures[name] ?? '–'))]),
		),
	].join('\n');
}

const BLOCKS = {
	queue,
	'real-batch': realBatch,
	'real-memory': realMemory,
	'real-listing': realListing,
	'engine-batch': engineBatch,
	'engine-return-all': engineReturnAll,
	rerun,
	'engine-upload-memory': engineUploadMemory,
	'poll-trigger': pollTrigger,
};

/** The markdown of every block, by name. */
export function renderBlocks(results) {
	return Object.fromEntries(
		Object.entries(BLOCKS).map(([name, render]) => [name, render(results)]),
	);
}

/** The range of each `<!-- bench:NAME -->` … `<!-- /bench:NAME -->` block of a page. */
export function blocksOf(markdown) {
	const found = {};
	for (const match of markdown.matchAll(
		/<!-- bench:([\w-]+) -->\n([\s\S]*?)\n<!-- \/bench:\1 -->/g,
	))
		found[match[1]] = match[2];
	return found;
}

export function withBlocks(markdown, rendered) {
	return markdown.replace(
		/<!-- bench:([\w-]+) -->\n[\s\S]*?\n<!-- \/bench:\1 -->/g,
		(whole, name) =>
			name in rendered
				? `<!-- bench:${name} -->\n${rendered[name]}\n<!-- /bench:${name} -->`
				: whole,
	);
}

/** The README's one line: the headline figures of both lines, with where they come from. */
export function headline(results) {
	const batch = realParts(results, 'batch');
	const memory = realParts(results, 'memory');
	const parts = [...batch, ...memory].map((p) => p.part);
	const pairs = batch
		.map(({ version, part }) => ({
			version,
			node: part.figures.find((f) => f.kind === 'node' && f.uploads === 200),
			diy: part.figures.find((f) => f.kind === 'diy' && f.uploads === 200),
		}))
		.filter((p) => p.node && p.diy);
	const lines = (list) =>
		list.length > 1
			? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`
			: (list[0] ?? 'not measured');
	const dates = parts.map((p) => p.date.slice(0, 10)).sort();
	const heavy = parts.some((p) => p.loadAverage.mean > p.loadAverage.cores);
	const machine = parts[0]?.machine.split(' (')[0] ?? 'unknown machine';
	return (
		`${HEADLINE_START} (\`npm run bench\`, ${machine}, ${dates[0] ?? '?'}${dates.at(-1) !== dates[0] ? ` to ${dates.at(-1)}` : ''}${heavy ? ', under load' : ''}): ` +
		`200 documents with results in ${lines(pairs.map((p) => `${x(p.node.ratioToProcessing)} the processing time on n8n ${p.version}`))} ` +
		`(do-it-yourself: ${lines(pairs.map((p) => x(p.diy.ratioToProcessing)))}); ` +
		`the upload step's memory, both sending 5 at a time (Concurrency ${memory[0]?.part.figures[0].concurrency ?? '?'}), ${lines(memory.map(({ version, part }) => `${x(part.figures[0].ratios.memHttpLoop)} the HTTP Request node's on ${version}`))}. ` +
		`Every figure, the machine and the load: [docs/benchmarks.md](docs/benchmarks.md).`
	);
}

/** The README with its headline line replaced (the line that starts with HEADLINE_START). */
export function withHeadline(readme, line) {
	return readme.replace(new RegExp(`^${escape(HEADLINE_START)}.*$`, 'm'), line);
}

function escape(text) {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Puts one part into the results file (keeping the others, keys sorted, as the benchmarks'
 * `--save` does) and rewrites the docs that quote it. For measurements made outside
 * `npm run bench`, e.g. the queue e2e's figures.
 */
export function savePart(name, part) {
	saveParts({ [name]: part });
	writeDocs(readResults());
}

function writeDocs(results) {
	writeFileSync(PAGE, withBlocks(readFileSync(PAGE, 'utf8'), renderBlocks(results)));
	writeFileSync(README, withHeadline(readFileSync(README, 'utf8'), headline(results)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const results = readResults();
	const page = readFileSync(PAGE, 'utf8');
	const readme = readFileSync(README, 'utf8');
	const nextPage = withBlocks(page, renderBlocks(results));
	const nextReadme = withHeadline(readme, headline(results));
	if (process.argv.includes('--check')) {
		const stale = [nextPage !== page && 'docs/benchmarks.md', nextReadme !== readme && 'README.md'];
		if (stale.some(Boolean)) {
			console.error(
				`not quoting docs/benchmarks/results.json: ${stale.filter(Boolean).join(', ')}`,
			);
			process.exit(1);
		}
	} else {
		writeDocs(results);
		console.log('docs/benchmarks.md and README.md quote docs/benchmarks/results.json');
	}
}
