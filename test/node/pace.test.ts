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

/** How many requests of `all` were at the service when `request` arrived (itself included). */
function atServiceWhen(all: RequestLogEntry[], request: RequestLogEntry): number {
	return all.filter((r) => at(r) <= at(request) && (r.doneAtMs ?? Infinity) > at(request)).length;
}

function most(all: RequestLogEntry[], some: RequestLogEntry[]): number {
	return Math.max(0, ...some.map((r) => atServiceWhen(all, r)));
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
	expect(most(all, all.slice(0, 5))).toBeLessThanOrEqual(5);
	expect(atServiceWhen(all, all[5])).toBeLessThanOrEqual(5);
	// Later, more than the old fixed 5, never more than the cap.
	expect(most(all, all)).toBeGreaterThan(5);
	expect(most(all, all)).toBeLessThanOrEqual(CAP);
});

test.each([
	['a 500', { kind: 'status500' as const }],
	[
		'a 429 with Retry-After',
		{ kind: 'status' as const, status: 429, headers: { 'Retry-After': '0' } },
	],
])(
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
		const before = all.slice(0, refused);
		const after = all.slice(refused + CAP);
		expect(most(all, before)).toBeGreaterThan(CAP / 2);
		expect(most(all, after)).toBeLessThanOrEqual(CAP / 2 + 3);
	},
);

test('the waiting reads share the pace: a batch with waiting gets every scan, in order', async () => {
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
	// Never more than Concurrency requests of any kind at the service at once.
	const log = sb.get().control.requests();
	const busiest = Math.max(...log.map((r) => atServiceWhen(log, r)));
	expect(busiest).toBeLessThanOrEqual(8 + 2); // + the budget check's two reads before the batch
});
