/**
 * The execution's pace through n8n-core's engine against the sandbox: uploads start 5 at a time
 * and grow toward "Concurrency" while the service answers quickly; a 5xx or a 429 during the
 * batch halves how many are at the service, and no document is charged twice. Counted on the
 * sandbox's request log (arrival and answer of every POST /scans), not timed.
 */
import type { RequestLogEntry } from '../../sandbox/types';
import { FAST_WAIT, jsonOf, run, uploadParams, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();

const DOCUMENTS = 60;
const CAP = 16;

function documents(label: string) {
	return Array.from({ length: DOCUMENTS }, (_, i) =>
		binaryItem(pdfBytes(`${label}-${i}`), `${label}-${i}.pdf`, 'application/pdf'),
	);
}

function uploads(): RequestLogEntry[] {
	return sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.path === '/scans')
		.sort((a, b) => at(a) - at(b));
}

const at = (r: RequestLogEntry) => r.atMs ?? 0;

/**
 * How many requests of `all` (in order of arrival) were at the service when the one at
 * `index` arrived, itself included. Requests that arrived in the same millisecond after it
 * are not counted: the log's clock has whole milliseconds.
 */
function atServiceWhen(all: RequestLogEntry[], index: number): number {
	return all.slice(0, index + 1).filter((r) => (r.doneAtMs ?? Infinity) > at(all[index])).length;
}

/** The most requests at the service when any of `all[from..to)` arrived. */
function most(all: RequestLogEntry[], from = 0, to = all.length): number {
	let found = 0;
	for (let index = from; index < to; index++) found = Math.max(found, atServiceWhen(all, index));
	return found;
}

beforeEach(() => sb.get().control.setOptions({ latencyMs: 150 }));

test('uploads grow from 5 at a time toward Concurrency while the service answers quickly', async () => {
	const result = await run(
		sb.env(),
		uploadParams({ options: { concurrency: CAP } }),
		documents('grow'),
	);
	expect(result.error).toBeUndefined();
	const all = uploads();
	expect(all).toHaveLength(DOCUMENTS);
	// The first five went alone: the sixth came after an answer.
	expect(most(all, 0, 6)).toBeLessThanOrEqual(5);
	// Later, more than the old fixed 5, never more than the cap.
	expect(most(all)).toBeGreaterThan(5);
	expect(most(all)).toBeLessThanOrEqual(CAP);
});

// A 429 is no strain the pace waits out for the upload: it stops the batch's uploads
// (test/node/upload-429.test.ts).
test.each([['a 500', { kind: 'status500' as const }]])(
	'%s in the middle of a batch halves the uploads at the service; every document is charged once',
	async (_what, fault) => {
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', after: 30, ...fault });
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: CAP } }),
			documents('strain'),
		);
		expect(result.error).toBeUndefined();
		const out = jsonOf(result);
		expect(out.map((scan) => scan.filename)).toEqual(
			Array.from({ length: DOCUMENTS }, (_, i) => `strain-${i}.pdf`),
		);
		expect(new Set(out.map((scan) => scan.id)).size).toBe(DOCUMENTS);
		expect(sb.get().control.account().used_scans).toBe(DOCUMENTS);

		const all = uploads();
		const refused = all.findIndex((r) => r.status !== 201);
		expect(all.filter((r) => r.status !== 201)).toHaveLength(1);
		expect(all).toHaveLength(DOCUMENTS + 1); // the refused one was sent again
		// Before: the window had grown past 8. After (past the requests already on their way
		// when the answer came): at most half the cap, plus one per window of quick answers.
		expect(most(all, 0, refused)).toBeGreaterThan(CAP / 2);
		expect(most(all, refused + CAP)).toBeLessThanOrEqual(CAP / 2 + 3);
	},
);

test('a batch with waiting gets every scan, in order, its reads at the same pace', async () => {
	sb.get().control.setOptions({ latencyMs: 20 });
	const result = await run(
		sb.env(),
		uploadParams({ waitForCompletion: true, options: { concurrency: 8, ...FAST_WAIT } }),
		documents('wait').slice(0, 30),
	);
	expect(result.error).toBeUndefined();
	expect(jsonOf(result).map((scan) => [scan.filename, scan.status])).toEqual(
		Array.from({ length: 30 }, (_, i) => [`wait-${i}.pdf`, 'completed']),
	);
	const log = sb
		.get()
		.control.requests()
		.sort((a, b) => at(a) - at(b));
	expect(most(log)).toBeLessThanOrEqual(8 + 2); // + the budget check's two reads before the batch
});

test('another operation takes one place per item: Scan → Get starts 5 at a time too', async () => {
	const ids = sb.get().control.seedScans({ count: 30 });
	sb.get().control.clearRequests();
	const result = await run(
		sb.env(),
		{
			resource: 'scan',
			operation: 'get',
			scanId: '={{ $json.id }}',
			options: { concurrency: CAP },
		},
		ids.map((id) => ({ json: { id } })),
	);
	expect(result.error).toBeUndefined();
	const reads = sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'GET')
		.sort((a, b) => at(a) - at(b));
	expect(reads).toHaveLength(30);
	expect(most(reads, 0, 6)).toBeLessThanOrEqual(5);
	expect(most(reads)).toBeGreaterThan(5);
	expect(most(reads)).toBeLessThanOrEqual(CAP);
});

test.each([
	[
		1,
		'keeps the 5 it had when it was saved',
		(most: number) => expect(most).toBeLessThanOrEqual(5),
	],
	[1.1, 'grows past 5 (Concurrency 64)', (most: number) => expect(most).toBeGreaterThan(5)],
])('Concurrency not set: node version %s %s', async (typeVersion, _what, expectMost) => {
	const result = await run(
		sb.env(),
		uploadParams(),
		documents(`v${typeVersion}`),
		false,
		typeVersion,
	);
	expect(result.error).toBeUndefined();
	expectMost(most(uploads()));
});
