/**
 * Scan → Upload on a shared account: the credit and the rolling hour's uploads are checked
 * before the first upload (issue reproductions: 20 documents with 10 hourly uploads left,
 * 12 documents with 5 credits left), and a limit hit anyway stops further uploads and names
 * the scans the execution got.
 */
import type { IDataObject } from 'n8n-workflow';

import { jsonOf, pairedOf, run, useSandbox, uploadParams } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();
const HOUR = 3_600_000;

const pdfs = (count: number) =>
	Array.from({ length: count }, (_, i) =>
		binaryItem(pdfBytes(`budget ${i}`), `doc-${i}.pdf`, 'application/pdf'),
	);
const posts = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.path === '/scans');
const used = () => sb.get().control.account().used_scans;
/**
 * The time an upload seeded at `scanId` has left the rolling hour for certain, as the node can
 * tell from `created_at` (whole seconds): an hour and a second after the time shown.
 */
const freesAt = (scanId: number) =>
	new Date(
		Math.floor(sb.get().control.getScan(scanId)!.createdAt / 1000) * 1000 + HOUR + 1000,
	).toISOString();

describe('20 documents, 10 uploads of the rolling hour left (190 by another client)', () => {
	let seeded: number[];
	beforeEach(() => {
		seeded = sb.get().control.seedUploads({ count: 190, oldest_age_ms: 50 * 60_000 });
	});

	test('without Continue On Fail: fails before any upload, naming the documents, the slots left and when they free up', async () => {
		const before = used();
		const result = await run(sb.env(), uploadParams(), pdfs(20));
		expect(result.error?.message).toBe(
			`The batch of 20 documents cannot be uploaded whole: 10 uploads of the 200 per rolling hour are left (the next free for certain at ${freesAt(seeded[0])}, service time). No document was uploaded`,
		);
		expect(result.error?.description).toMatch(/Continue On Fail/);
		expect(result.error?.description).toContain(`All 20 fit from ${freesAt(seeded[9])}`);
		expect(posts()).toHaveLength(0);
		expect(used()).toBe(before);
	});

	test('with Continue On Fail: the first 10 are uploaded, each other one gets a paired "not uploaded" item with its retry time', async () => {
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 5 } }),
			pdfs(20),
			true,
		);
		const out = jsonOf(result);
		expect(pairedOf(result)).toEqual(Array.from({ length: 20 }, (_, i) => i));
		expect(out.slice(0, 10).map((o) => o.filename)).toEqual(
			Array.from({ length: 10 }, (_, i) => `doc-${i}.pdf`),
		);
		out.slice(10).forEach((o, j) => {
			expect(o).toEqual({
				error: `Item ${10 + j}: not uploaded: the hourly upload limit is used up (10 uploads of the 200 per rolling hour were left for 20 new uploads)`,
				description: expect.stringContaining(`A retry can succeed from ${freesAt(seeded[j])}`),
				notUploaded: true,
				reason: 'hourlyLimit',
				retryAfter: freesAt(seeded[j]),
			});
		});
		expect(posts().map((r) => r.status)).toEqual(Array(10).fill(201));
	});

	test('the count follows the service clock: once the oldest uploads are older than an hour, their slots are free', async () => {
		sb.get().control.advanceClock(20 * 60_000 + 30_000);
		// The uploads seeded 50 to 39.5 minutes before the clock moved (about 40) are now over an hour old.
		const result = await run(sb.env(), uploadParams(), pdfs(20));
		expect(result.error).toBeUndefined();
		expect(posts()).toHaveLength(20);
	});
});

describe('12 documents, 5 credits left', () => {
	beforeEach(() => {
		sb.get().control.setCredits(5);
	});

	test('without Continue On Fail: fails before any upload, naming the documents and the credit left', async () => {
		const result = await run(sb.env(), uploadParams(), pdfs(12));
		expect(result.error?.message).toBe(
			'The batch of 12 documents cannot be uploaded whole: the account has 5 scan credits left. No document was uploaded',
		);
		expect(result.error?.description).toMatch(/Top up the account/);
		expect(posts()).toHaveLength(0);
		expect(sb.get().control.account().remaining_scans).toBe(5);
	});

	test('with Continue On Fail: 5 are uploaded, 7 get "not uploaded" items without a retry time', async () => {
		const result = await run(sb.env(), uploadParams(), pdfs(12), true);
		const out = jsonOf(result);
		expect(pairedOf(result)).toEqual(Array.from({ length: 12 }, (_, i) => i));
		expect(out.slice(0, 5).every((o) => o.status === 'uploaded')).toBe(true);
		for (const o of out.slice(5)) {
			expect(o).toEqual(
				expect.objectContaining({ notUploaded: true, reason: 'credit', retryAfter: null }),
			);
			expect(o.error).toMatch(
				/the scan credit is used up \(the account has 5 scan credits left for 12 new uploads\)/,
			);
		}
		expect(sb.get().control.account().remaining_scans).toBe(0);
	});
});

describe('a limit hit anyway: another client takes what was left between the check and the uploads', () => {
	test('429 without Continue On Fail: no further upload, the error names every scan created (file name and ID)', async () => {
		sb.get().control.seedUploads({ count: 190 });
		sb.get().control.takeAfterUploads({ after: 2, slots: 8 });
		const result = await run(sb.env(), uploadParams({ options: { concurrency: 1 } }), pdfs(6));
		expect(posts().map((r) => r.status)).toEqual([201, 201, 429]);
		const created = (result.error?.context?.createdScans ?? []) as IDataObject[];
		expect(created.map((c) => c.fileName)).toEqual(['doc-0.pdf', 'doc-1.pdf']);
		for (const c of created)
			expect(sb.get().control.getScan(c.scanId as number)?.filename).toBe(c.fileName);
		expect(result.error?.message).toMatch(
			/^Item 2: the service refused the upload \(HTTP 429: .*\) after this execution got 2 scans; no further upload was sent$/,
		);
		for (const c of created)
			expect(result.error?.description).toContain(
				`"${String(c.fileName)}" → scan ${String(c.scanId)}`,
			);
		// Uploaded under their exact names (node version 1): a re-run cannot find them by themselves.
		expect(result.error?.description).toMatch(
			/leave these documents out when you run the batch again/,
		);
	});

	test('a 429 on the re-send after a lost answer closes the gate too: the item may have been uploaded, the next one is not sent', async () => {
		sb.get().control.seedUploads({ count: 197 });
		// The first upload is stored but its answer lost; another client then takes the last 2 slots.
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		sb.get().control.takeAfterUploads({ after: 1, slots: 2 });
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 1 } }),
			pdfs(3),
			true,
		);
		// doc-0 twice (stored, then 429), and nothing for doc-1 or doc-2.
		expect(posts().map((r) => r.status)).toEqual([201, 429]);
		const out = jsonOf(result);
		expect(pairedOf(result)).toEqual([0, 1, 2]);
		// doc-0 was stored: its item says the outcome is unknown and names the scan, never "not uploaded".
		expect(out[0].error).toMatch(
			/^Item 0: the upload of "doc-0.pdf" may or may not have been accepted/,
		);
		expect(out[0].notUploaded).toBeUndefined();
		const stored = sb
			.get()
			.control.requests()
			.find((r) => r.method === 'POST' && r.status === 201);
		expect(stored).toBeDefined();
		expect(out[0].description).toMatch(/named "doc-0.pdf" made since the upload was sent: \d+\./);
		for (const o of out.slice(1)) {
			expect(o.notUploaded).toBe(true);
			expect(o.reason).toBe('hourlyLimit');
		}
	});

	test('the same without Continue On Fail: the node stops with that item\'s "may or may not" error, naming the scans it got', async () => {
		sb.get().control.seedUploads({ count: 196 });
		// doc-0 is uploaded; doc-1 is stored but its answer lost; another client takes the last 2 slots.
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'dropAfterCommit',
			after: 1,
		});
		sb.get().control.takeAfterUploads({ after: 2, slots: 2 });
		const result = await run(sb.env(), uploadParams({ options: { concurrency: 1 } }), pdfs(3));
		expect(posts().map((r) => r.status)).toEqual([201, 201, 429]);
		expect(result.error?.message).toMatch(
			/^Item 1: the upload of "doc-1.pdf" may or may not have been accepted/,
		);
		expect(result.error?.description).toMatch(/named "doc-1.pdf" made since the upload was sent/);
		const created = (result.error?.context?.createdScans ?? []) as IDataObject[];
		expect(created.map((c) => c.fileName)).toEqual(['doc-0.pdf']);
		expect(result.error?.description).toContain(`"doc-0.pdf" → scan ${String(created[0].scanId)}`);
		expect(result.error?.context?.notUploaded).toBeUndefined();
	});

	test('402 with Continue On Fail: the created scans are output, the refused and the unsent items get "not uploaded" items', async () => {
		sb.get().control.setCredits(10);
		sb.get().control.takeAfterUploads({ after: 2, credits: 8 });
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 1 } }),
			pdfs(6),
			true,
		);
		const out = jsonOf(result);
		expect(pairedOf(result)).toEqual([0, 1, 2, 3, 4, 5]);
		expect(out.slice(0, 2).map((o) => o.filename)).toEqual(['doc-0.pdf', 'doc-1.pdf']);
		expect(out[2]).toEqual(
			expect.objectContaining({
				httpCode: '402',
				notUploaded: true,
				reason: 'credit',
				retryAfter: null,
			}),
		);
		for (const o of out.slice(3)) {
			expect(o).toEqual(
				expect.objectContaining({ notUploaded: true, reason: 'credit', retryAfter: null }),
			);
			expect(o.error).toMatch(/HTTP 402.*so the node sent no further upload/);
		}
		expect(posts().map((r) => r.status)).toEqual([201, 201, 402]);
	});

	test('no hammering: after a 429 without Retry-After no upload is sent, uploads in flight finish and keep their scans', async () => {
		sb.get().control.seedUploads({ count: 190 });
		sb.get().control.takeAfterUploads({ after: 3, slots: 7 });
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 4 } }),
			pdfs(10),
			true,
		);
		// Each of the 4 workers gets at most one refusal: after it, no worker sends again.
		const refused = posts().filter((r) => r.status === 429);
		expect(refused.length).toBeGreaterThanOrEqual(1);
		expect(refused.length).toBeLessThanOrEqual(4);
		expect(posts()).toHaveLength(3 + refused.length);
		const out = jsonOf(result);
		expect(pairedOf(result)).toEqual(Array.from({ length: 10 }, (_, i) => i));
		const uploaded = out.filter((o) => o.status === 'uploaded');
		expect(uploaded).toHaveLength(3);
		for (const o of uploaded)
			expect(sb.get().control.getScan(o.id as number)?.filename).toBe(o.filename);
		expect(out.filter((o) => o.notUploaded === true)).toHaveLength(7);
		// The retry time comes from one fresh count: the oldest upload of the hour + 1 h.
		expect(new Set(out.filter((o) => o.notUploaded).map((o) => o.retryAfter)).size).toBe(1);
	});
});

test('a single document is not checked first: the service refuses it without charging', async () => {
	sb.get().control.setCredits(0);
	const result = await run(sb.env(), uploadParams(), pdfs(1));
	expect(result.error?.message).toBe('Not enough scan credit (item 0)');
	expect(
		sb
			.get()
			.control.requests()
			.map((r) => `${r.method} ${r.path}`),
	).toEqual(['POST /scans']);
});

test('the "Hourly Upload Limit" option leaves room for other clients', async () => {
	sb.get().control.seedUploads({ count: 40 });
	const result = await run(sb.env(), uploadParams({ options: { hourlyLimit: 45 } }), pdfs(6), true);
	expect(jsonOf(result).map((o) => (o.notUploaded ? 'held' : 'sent'))).toEqual([
		'sent',
		'sent',
		'sent',
		'sent',
		'sent',
		'held',
	]);
});

test('a re-run with "Return Existing Scan": files the service already has give their share of the budget back to new ones', async () => {
	const files = pdfs(6);
	// The earlier run had "Return Existing Scan" too: its scans carry the files' fingerprints.
	expect(
		(
			await run(
				sb.env(),
				uploadParams({ options: { onDuplicate: 'returnExisting' } }),
				files.slice(0, 3),
			)
		).error,
	).toBeUndefined();
	sb.get().control.advanceClock(60_000); // an earlier run: its scans are older than this execution's check
	sb.get().control.seedUploads({ count: 194 }); // 3 + 194: 3 uploads of the hour left for 6 documents
	const result = await run(
		sb.env(),
		uploadParams({ options: { onDuplicate: 'returnExisting', concurrency: 2 } }),
		files,
		true,
	);
	const out = jsonOf(result);
	expect(out.map((o) => String(o.filename).replace(/\.ds-[0-9a-f]{12}\.pdf$/, '.pdf'))).toEqual(
		files.map((_, i) => `doc-${i}.pdf`),
	);
	expect(out.some((o) => o.notUploaded || o.error)).toBe(false);
	expect(posts().filter((r) => r.status === 201)).toHaveLength(6);
});

test('a single document is checked against a lower "Hourly Upload Limit"', async () => {
	sb.get().control.seedUploads({ count: 45 });
	const result = await run(sb.env(), uploadParams({ options: { hourlyLimit: 45 } }), pdfs(1), true);
	expect(jsonOf(result)).toEqual([
		expect.objectContaining({ notUploaded: true, reason: 'hourlyLimit' }),
	]);
	expect(posts()).toHaveLength(0);
});
