/**
 * Issue 32 §5: a 429 stops the batch. 40 documents fit; another client fills the hour right after
 * the node's first upload is accepted. After the first 429 the execution sends no new upload:
 * only uploads already on the wire are answered, whether the service sends `Retry-After` or not
 * (no upload waits it out on its own). Every POST but the first is held 300 ms at the service
 * after it arrived, so an upload on the wire when the first 429 is answered arrived before it,
 * and one sent after the node heard of it arrives after it: the figure "POSTs after the first
 * 429" counts those, and must be 0. Through n8n-core's engine against the sandbox.
 */
import type { RequestLogEntry } from '../../sandbox/server';
import { jsonOf, LATEST, pairedOf, run, uploadParams, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();
const DOCUMENTS = 40;

const pdfs = () =>
	Array.from({ length: DOCUMENTS }, (_, i) =>
		binaryItem(pdfBytes(`stop ${i}`), `doc-${i}.pdf`, 'application/pdf'),
	);
const posts = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.path === '/scans');

/** POSTs that arrived after the first 429 was answered. */
function postsAfterFirst429(): { after: RequestLogEntry[]; total: number } {
	const all = posts();
	const first = all.filter((r) => r.status === 429).sort((a, b) => a.doneAtMs! - b.doneAtMs!)[0];
	return { after: all.filter((r) => r.atMs! > first.doneAtMs!), total: all.length };
}

function fillTheHourAfterTheFirstUpload() {
	sb.get().control.takeAfterUploads({ after: 1, slots: 199 });
	sb.get().control.addFault({
		method: 'POST',
		path: '^/scans$',
		kind: 'latency',
		latencyMs: 300,
		after: 1,
		times: DOCUMENTS,
	});
}

describe.each([false, true])('Retry-After sent: %s', (retryAfter) => {
	beforeEach(() => sb.get().control.setOptions({ retryAfter }));

	test('with Continue On Fail: no POST after the first 429; every item paired, the others "not uploaded"', async () => {
		fillTheHourAfterTheFirstUpload();
		const result = await run(sb.env(), uploadParams(), pdfs(), true);
		const { after, total } = postsAfterFirst429();
		expect(after).toEqual([]);
		// Only what the pace had on the wire: the first 5, and what the first answer let go.
		expect(total).toBeLessThanOrEqual(8);
		expect(pairedOf(result)).toEqual(Array.from({ length: DOCUMENTS }, (_, i) => i));
		const out = jsonOf(result);
		expect(out.filter((o) => o.status === 'uploaded')).toHaveLength(1);
		expect(out.filter((o) => o.notUploaded === true)).toHaveLength(DOCUMENTS - 1);
		for (const o of out.filter((o) => o.notUploaded === true))
			expect(o).toMatchObject({ reason: 'hourlyLimit', retryAfter: expect.any(String) });
	});

	test('without it: the node stops, no POST after the first 429', async () => {
		fillTheHourAfterTheFirstUpload();
		const result = await run(sb.env(), uploadParams(), pdfs());
		expect(result.error?.message).toMatch(/HTTP 429/);
		expect(postsAfterFirst429().after).toEqual([]);
	});
});

test('an upload whose answer was lost is not sent again once another upload met a 429: its outcome is unknown, naming the scan that may be it', async () => {
	sb.get().control.takeAfterUploads({ after: 1, slots: 199 });
	// The first upload to arrive is stored, its answer lost; the other one meets the full hour.
	sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
	const items = pdfs().slice(0, 2);
	const result = await run(sb.env(), uploadParams({ options: { concurrency: 2 } }), items, true);
	expect(
		posts()
			.map((r) => r.status)
			.sort(),
	).toEqual([201, 429]);
	const out = jsonOf(result);
	const lost = out.find((o) => o.outcomeUnknown === true)!;
	expect(lost.error).toMatch(
		/may or may not have been accepted: its answer was lost, and it was not sent again after the service refused an upload of this execution$/,
	);
	expect(lost.candidateScanIds).toEqual([expect.any(Number)]);
	expect(sb.get().control.getScan((lost.candidateScanIds as number[])[0])?.charged).toBe(true);
	expect(out.find((o) => o !== lost)).toMatchObject({ notUploaded: true, httpCode: '429' });
});

test('§8 the 429 stop error says when all documents not uploaded fit; followed then, the re-run with "Return Existing Scan" goes through whole', async () => {
	// The clock stands still (it moves only when the test moves it), half a second past a whole
	// second, and the other client's uploads lie 10 s apart: each was made 0.5 s after the second
	// its created_at shows, so one second before the time said, the slot is 0.5 s from free.
	const control = sb.get().control;
	const frozenAt = Math.floor(Date.now() / 1000) * 1000 + 500;
	control.freezeClock(true, frozenAt);
	control.seedUploads({ count: 190, oldest_age_ms: 190 * 10_000 });
	control.takeAfterUploads({ after: 2, slots: 8 });
	const batch = pdfs().slice(0, 6);
	const params = (options = {}) => uploadParams({ options: { concurrency: 1, ...options } });
	const stopped = await run(sb.env(), params(), batch, false, LATEST);
	expect(posts().map((r) => r.status)).toEqual([201, 201, 429]);
	const said = /All 4 documents not uploaded fit from (\S+) \(service time\)/.exec(
		String(stopped.error?.description),
	);
	expect(said).not.toBeNull();
	expect(stopped.error?.description).toMatch(/turn on Continue On Fail/);

	// A second earlier, the batch is still refused whole; at the time said, it goes through.
	const at = Date.parse(said![1]);
	control.advanceClock(at - 1000 - frozenAt);
	const early = await run(
		sb.env(),
		params({ onDuplicate: 'returnExisting' }),
		batch,
		false,
		LATEST,
	);
	expect(early.error?.message).toMatch(/cannot be uploaded whole/);
	control.advanceClock(1000);
	const rerun = await run(
		sb.env(),
		params({ onDuplicate: 'returnExisting' }),
		batch,
		false,
		LATEST,
	);
	expect(rerun.error).toBeUndefined();
	expect(
		jsonOf(rerun)
			.slice(0, 2)
			.map((o) => o.id),
	).toEqual(
		(stopped.error?.context?.createdScans as Array<{ scanId: number }>).map((c) => c.scanId),
	);
	expect(jsonOf(rerun)).toHaveLength(6);
});
