/**
 * Scan → Upload, issue 24 sections 1 and 2: every upload the node makes can be found again as
 * provably that file's scan (the content fingerprint in its stored name, by default from node
 * version 1.1), a lost answer is recovered only with that proof, and every piece of advice the
 * node gives works when followed: each test below follows it. Real node, n8n-core's engine,
 * the sandbox over HTTP.
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY } from '../../sandbox/server';
import { jsonOf, LATEST, pairedOf, run, uploadParams, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();
const HOUR = 60 * 60 * 1000;

const pdf = (content: Buffer, name: string) => binaryItem(content, name, 'application/pdf');
const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');
const fp = (content: Buffer) => sha256(content).slice(0, 12);
const returnExisting = (options: IDataObject = {}) =>
	uploadParams({ options: { onDuplicate: 'returnExisting', ...options } });
const credits = () => sb.get().control.account().used_scans;
const contentOf = (scanId: unknown) => sb.get().control.getScan(Number(scanId))?.contentSha256;
const posts = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.path === '/scans');
const get = (scanId: unknown) =>
	run(sb.env(), { resource: 'scan', operation: 'get', scanId: String(scanId) });

/** Waits for a state the sandbox will reach (no fixed sleeps). */
async function until(condition: () => boolean, timeoutMs = 20_000) {
	const end = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > end) throw new Error('condition not reached');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

/** Another client of the account uploads `content` as `name` (exact name, no fingerprint). */
async function otherClientUploads(content: Buffer, name: string): Promise<number> {
	const form = new FormData();
	form.append('template_id', '1');
	form.append('file', new Blob([content]), name);
	const response = await fetch(`${sb.get().baseUrl}/scans`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${DEFAULT_API_KEY}` },
		body: form,
	});
	expect(response.status).toBe(201);
	return ((await response.json()) as { data: { id: number } }).data.id;
}

describe("section 1: a lost answer never gives the item another document's scan", () => {
	/**
	 * The race of the issue: the bytes were scanned two hours ago; the upload's first attempt gets
	 * a 500 before the service stores anything; meanwhile another client scans another document
	 * with the same file name; the re-send gets a 409 because of the two-hour-old copy.
	 */
	async function race(typeVersion: number, options: IDataObject = {}) {
		const bytes = pdfBytes('ours');
		const earlier = jsonOf(
			await run(sb.env(), uploadParams(), [pdf(bytes, 'doc.pdf')], false, typeVersion),
		)[0];
		sb.get().control.advanceClock(2 * HOUR);
		sb.get().control.clearRequests();
		// The first matching fault applies: the first attempt gets the 500, the re-send waits 2 s.
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'status500' });
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'latency',
			latencyMs: 2000,
		});
		const running = run(
			sb.env(),
			uploadParams({ options }),
			[pdf(bytes, 'doc.pdf')],
			true,
			typeVersion,
		);
		await until(() => posts().length === 2);
		const theirs = await otherClientUploads(pdfBytes('theirs'), 'doc.pdf');
		const result = await running;
		expect(
			posts()
				.map((r) => r.status)
				.sort(),
		).toEqual([201, 409, 500]);
		return { earlier, theirs, item: jsonOf(result)[0], bytes };
	}

	test('with the fingerprint (node version 1.1): the clear 409 error, not the newcomer', async () => {
		const { theirs, item } = await race(LATEST);
		expect(JSON.stringify(item)).not.toContain(`"id":${theirs}`);
		expect(item.error).toBe('Item 0: "doc.pdf" was already uploaded with template 1');
		expect(item.description).toContain(
			"no scan with this file's content fingerprint was made since it was sent: the service's copy is an earlier upload",
		);
		expect(item).toEqual(expect.objectContaining({ alreadyUploaded: true, httpCode: '409' }));
	});

	test('with "Return Existing Scan": the two-hour-old scan of these bytes, proven by its fingerprint', async () => {
		const { earlier, theirs, item, bytes } = await race(LATEST, { onDuplicate: 'returnExisting' });
		expect(item.id).toBe(earlier.id);
		expect(item.id).not.toBe(theirs);
		expect(contentOf(item.id)).toBe(sha256(bytes));
	});

	test('with the exact name (node version 1): a clear error naming the newcomer as only possibly this document', async () => {
		const { theirs, item } = await race(1);
		expect(item.id).toBeUndefined();
		expect(item.error).toMatch(
			/^Item 0: the upload of "doc.pdf" may or may not have been accepted/,
		);
		expect(item.description).toContain(
			`Scans of template 1 named "doc.pdf" made since the upload was sent: ${theirs}.`,
		);
		expect(item).toEqual(expect.objectContaining({ candidateScanIds: [theirs] }));
	});
});

describe('section 2: every upload is found again, and every piece of advice works when followed', () => {
	test('a batch uploaded with the default settings and re-run with "Return Existing Scan": every item gets its own scan, at once and an hour later', async () => {
		const files = Array.from({ length: 6 }, (_, i) => ({
			bytes: pdfBytes(`batch-${i}`),
			name: `Delivery note ${i}.pdf`,
		}));
		const items = files.map((f) => pdf(f.bytes, f.name));
		const first = await run(sb.env(), uploadParams(), items, false, LATEST);
		expect(first.error).toBeUndefined();
		const ids = jsonOf(first).map((scan) => scan.id);
		expect(jsonOf(first).map((scan) => scan.filename)).toEqual(
			files.map((f) => f.name.replace(/\.pdf$/, `.ds-${fp(f.bytes)}.pdf`)),
		);
		for (const later of [0, HOUR + 60_000]) {
			sb.get().control.advanceClock(later);
			const rerun = await run(sb.env(), returnExisting(), items, false, LATEST);
			expect(rerun.error).toBeUndefined();
			expect(jsonOf(rerun).map((scan) => scan.id)).toEqual(ids);
		}
		expect(credits()).toBe(6);
	});

	test('the 409 error says to set "Return Existing Scan"; doing so outputs the scan', async () => {
		const bytes = pdfBytes();
		const first = jsonOf(
			await run(sb.env(), uploadParams(), [pdf(bytes, 'a.pdf')], false, LATEST),
		)[0];
		const again = await run(sb.env(), uploadParams(), [pdf(bytes, 'a.pdf')], false, LATEST);
		expect(again.error?.message).toBe('Item 0: "a.pdf" was already uploaded with template 1');
		expect(again.error?.description).toContain(
			'set "If Already Uploaded" to "Return Existing Scan"',
		);
		const followed = await run(sb.env(), returnExisting(), [pdf(bytes, 'a.pdf')], false, LATEST);
		expect(followed.error).toBeUndefined();
		expect(jsonOf(followed)[0].id).toBe(first.id);
		expect(credits()).toBe(1);
	});

	test('a file uploaded under its exact name (node version 1): the advice leads to the scans of its name, and Scan → Get opens the right one', async () => {
		const bytes = pdfBytes();
		const first = jsonOf(await run(sb.env(), uploadParams(), [pdf(bytes, 'b.pdf')]))[0];
		const again = await run(sb.env(), uploadParams(), [pdf(bytes, 'b.pdf')]);
		expect(again.error?.description).toContain('fails naming the scans with this file name');
		const followed = await run(sb.env(), returnExisting(), [pdf(bytes, 'b.pdf')], true);
		const [item] = jsonOf(followed);
		expect(item.sameNameScanIds).toEqual([first.id]);
		expect(item.description).toContain('Open them with Scan → Get');
		const opened = await get(first.id);
		expect(jsonOf(opened)[0].id).toBe(first.id);
		expect(contentOf(first.id)).toBe(sha256(bytes));
	});

	test('the stop error after a 429 lists the scans and says to re-run with "Return Existing Scan": the re-run outputs them and uploads the rest', async () => {
		sb.get().control.seedUploads({ count: 190 });
		sb.get().control.takeAfterUploads({ after: 2, slots: 8 });
		const files = Array.from({ length: 5 }, (_, i) => pdf(pdfBytes(`stop-${i}`), `doc-${i}.pdf`));
		const stopped = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 1 } }),
			files,
			false,
			LATEST,
		);
		const created = stopped.error?.context?.createdScans as IDataObject[];
		expect(created.map((c) => c.itemIndex)).toEqual([0, 1]);
		expect(stopped.error?.description).toContain(
			'Run the batch again with "If Already Uploaded" set to "Return Existing Scan"',
		);
		// An hour later the slots are free again.
		sb.get().control.advanceClock(HOUR + 60_000);
		const followed = await run(sb.env(), returnExisting({ concurrency: 1 }), files, false, LATEST);
		expect(followed.error).toBeUndefined();
		const out = jsonOf(followed);
		expect(out.slice(0, 2).map((scan) => scan.id)).toEqual(created.map((c) => c.scanId));
		expect(pairedOf(followed)).toEqual([0, 1, 2, 3, 4]);
		expect(new Set(out.map((scan) => scan.id)).size).toBe(5);
		expect(credits()).toBe(190 + 8 + 5);
	});

	test('the stop error of uploads under their exact names says to get them by ID and leave them out: both work', async () => {
		sb.get().control.seedUploads({ count: 190 });
		sb.get().control.takeAfterUploads({ after: 2, slots: 8 });
		const files = Array.from({ length: 4 }, (_, i) => pdf(pdfBytes(`exact-${i}`), `doc-${i}.pdf`));
		const stopped = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 1, storedFileName: 'asIs' } }),
			files,
			false,
			LATEST,
		);
		expect(stopped.error?.description).toContain(
			'Get them with Scan → Get by these IDs, and leave these documents out',
		);
		const created = stopped.error?.context?.createdScans as IDataObject[];
		for (const scan of created) expect(jsonOf(await get(scan.scanId))[0].id).toBe(scan.scanId);
		sb.get().control.advanceClock(HOUR + 60_000);
		const rest = await run(
			sb.env(),
			uploadParams({ options: { storedFileName: 'asIs' } }),
			files.slice(created.length),
			false,
			LATEST,
		);
		expect(rest.error).toBeUndefined();
		expect(jsonOf(rest)).toHaveLength(2);
	});

	test('an upload whose outcome stays unknown says to re-run with "Return Existing Scan": that outputs the scan it made', async () => {
		const bytes = pdfBytes();
		// Stored, but no answer ever arrives, and the listing fails too: nothing proves the scan now.
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'drop', times: 2 });
		sb.get().control.addFault({
			method: 'GET',
			path: '^/scans$',
			kind: 'status',
			status: 503,
			times: 4,
		});
		const lost = await run(sb.env(), uploadParams(), [pdf(bytes, 'c.pdf')], true, LATEST);
		const [item] = jsonOf(lost);
		expect(item.error).toMatch(/may or may not have been accepted/);
		expect(item.description).toContain(
			'Run it again with "If Already Uploaded" set to "Return Existing Scan": if a scan was made, it is output without a new credit',
		);
		const followed = await run(sb.env(), returnExisting(), [pdf(bytes, 'c.pdf')], false, LATEST);
		expect(followed.error).toBeUndefined();
		expect(contentOf(jsonOf(followed)[0].id)).toBe(sha256(bytes));
		expect(credits()).toBe(1);
	});

	test('"Keep Exact File Name" with "Return Existing Scan" is refused before any upload, naming both options', async () => {
		const result = await run(
			sb.env(),
			returnExisting({ storedFileName: 'asIs' }),
			[pdf(pdfBytes(), 'x.pdf')],
			false,
			LATEST,
		);
		expect(result.error?.message).toBe(
			'Item 0: "File Name at the Service" = "Keep Exact File Name" cannot be combined with "If Already Uploaded" = "Return Existing Scan"',
		);
		expect(sb.get().control.requests()).toEqual([]);
	});

	test('node version 1 keeps the exact name by default; 1.1 adds the fingerprint; the option decides either way', async () => {
		const name = async (typeVersion: number, options: IDataObject = {}) => {
			const bytes = pdfBytes();
			const [scan] = jsonOf(
				await run(sb.env(), uploadParams({ options }), [pdf(bytes, 'n.pdf')], false, typeVersion),
			);
			return scan.filename === 'n.pdf'
				? 'exact'
				: scan.filename === `n.ds-${fp(bytes)}.pdf`
					? 'fingerprint'
					: scan.filename;
		};
		expect(await name(1)).toBe('exact');
		expect(await name(LATEST)).toBe('fingerprint');
		expect(await name(1, { storedFileName: 'withFingerprint' })).toBe('fingerprint');
		expect(await name(LATEST, { storedFileName: 'asIs' })).toBe('exact');
		expect(await name(1, { onDuplicate: 'returnExisting' })).toBe('fingerprint');
	});
});
