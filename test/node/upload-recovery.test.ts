/**
 * Scan → Upload: a document never gets another document's scan. Lost answers are followed by
 * sending the file again (the service's 409 guard makes that safe); after that 409 the node
 * outputs a scan only when it provably holds the file: its stored name carries the file's
 * content fingerprint (node version 1.1 by default) and it was made since the first attempt.
 * With the exact file name (node version 1 by default) nothing proves which scan holds the file,
 * so the item fails naming the scans that may be it. "Return Existing Scan" follows the same
 * proof. Every case runs the real node against the sandbox over HTTP.
 */
import { createHash } from 'crypto';

import { FAST_WAIT, jsonOf, LATEST, pairedOf, rl, run, useSandbox, uploadParams } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();

const returnExisting = (extra: Record<string, unknown> = {}) =>
	uploadParams({
		...extra,
		options: { onDuplicate: 'returnExisting', ...((extra.options as object) ?? {}) },
	});

const pdf = (content: Buffer, name: string) => binaryItem(content, name, 'application/pdf');
const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');
const fp = (content: Buffer) => sha256(content).slice(0, 12);

function credits() {
	return sb.get().control.account().used_scans;
}
function requestLog() {
	return sb
		.get()
		.control.requests()
		.map((r) => `${r.method} ${r.path} ${r.status}`);
}
/** The bytes the sandbox stored for a scan, as a digest: which document a scan really holds. */
function contentOf(scanId: unknown) {
	return sb.get().control.getScan(Number(scanId))?.contentSha256;
}

describe('a lost answer is followed by sending the file again, not by guessing', () => {
	test("reproduction: a 500 before the service stored the file never outputs another client's scan of the same name", async () => {
		// Another client of the account scanned a different "scan.pdf" 20 s ago.
		const theirs = pdfBytes('theirs');
		const other = jsonOf(await run(sb.env(), uploadParams(), [pdf(theirs, 'scan.pdf')]))[0];
		sb.get().control.advanceClock(20_000);
		sb.get().control.clearRequests();

		const ours = pdfBytes('ours');
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'status500' });
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: { ...FAST_WAIT } }),
			[pdf(ours, 'scan.pdf')],
		);

		expect(result.error).toBeUndefined();
		const [scan] = jsonOf(result);
		expect(scan.id).not.toBe(other.id);
		expect(contentOf(scan.id)).toBe(sha256(ours));
		expect(scan.status).toBe('completed');
		expect(credits()).toBe(2);
		// Sent again at once; no listing was needed because the second attempt was answered.
		expect(requestLog().filter((line) => line.startsWith('POST'))).toEqual([
			'POST /scans 500',
			'POST /scans 201',
		]);
		expect(requestLog().filter((line) => line === 'GET /scans 200')).toEqual([]);
	});

	test("answer lost after the scan was stored: the second attempt's 409 and the fingerprint lead to it; one scan, one credit", async () => {
		const ours = pdfBytes();
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		const result = await run(sb.env(), uploadParams(), [pdf(ours, 'lost.pdf')], false, LATEST);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({ id: 1, filename: `lost.ds-${fp(ours)}.pdf` }),
		);
		expect(contentOf(1)).toBe(sha256(ours));
		expect(sb.get().control.getScan(2)).toBeUndefined();
		expect(credits()).toBe(1);
		expect(requestLog()).toEqual([
			// The sandbox logs the status it committed; the node never received that answer.
			'POST /scans 201',
			'POST /scans 409',
			'GET /scans 200',
		]);
	});

	test('the same with the exact file name (node version 1): no proof, so the item fails naming the scan that may be it', async () => {
		const ours = pdfBytes();
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		const result = await run(sb.env(), uploadParams(), [pdf(ours, 'lost.pdf')], true);
		const [item] = jsonOf(result);
		expect(item.error).toBe(
			'Item 0: the upload of "lost.pdf" may or may not have been accepted: a re-send was answered HTTP 409 (This file was already uploaded with this template)',
		);
		expect(item.description).toContain(
			'Scans of template 1 named "lost.pdf" made since the upload was sent: 1.',
		);
		expect(item).toEqual(expect.objectContaining({ outcomeUnknown: true, candidateScanIds: [1] }));
		expect(credits()).toBe(1);
	});

	test('an older scan of the same name is not a candidate: the server clock decides what is recent', async () => {
		// "monthly.pdf", another document, created 10 minutes ago on the server's clock; the
		// sandbox's clock (and its Date header) runs 10 minutes ahead of this machine's.
		await run(sb.env(), uploadParams(), [pdf(pdfBytes('old'), 'monthly.pdf')]);
		sb.get().control.advanceClock(10 * 60 * 1000);
		sb.get().control.clearRequests();
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		const ours = pdfBytes('new');
		const result = await run(sb.env(), uploadParams(), [pdf(ours, 'monthly.pdf')], true);
		// Only the new scan is named as maybe this document's.
		expect(jsonOf(result)[0]).toEqual(expect.objectContaining({ candidateScanIds: [2] }));
		const proven = await run(
			sb.env(),
			returnExisting(),
			[pdf(pdfBytes('newer'), 'monthly.pdf')],
			false,
			LATEST,
		);
		expect(proven.error).toBeUndefined();
		expect(credits()).toBe(3);
	});

	test('a scan another item of this execution holds is skipped: each item gets its own "scan.pdf"', async () => {
		const first = pdfBytes('first');
		const second = pdfBytes('second');
		// Item 0 is answered; item 1's answer is lost after the service stored it. Item 0's scan
		// is as recent and has the same name, but it is item 0's.
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'dropAfterCommit',
			after: 1,
		});
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 1 } }),
			[pdf(first, 'scan.pdf'), pdf(second, 'scan.pdf')],
			false,
			LATEST,
		);
		expect(result.error).toBeUndefined();
		const [a, b] = jsonOf(result);
		expect(a.id).not.toBe(b.id);
		expect(contentOf(a.id)).toBe(sha256(first));
		expect(contentOf(b.id)).toBe(sha256(second));
		expect(credits()).toBe(2);
	});

	test('with exact names, a scan another item holds is not named either', async () => {
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'dropAfterCommit',
			after: 1,
		});
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 1 } }),
			[pdf(pdfBytes('first'), 'scan.pdf'), pdf(pdfBytes('second'), 'scan.pdf')],
			true,
		);
		const [a, b] = jsonOf(result);
		expect(a.id).toBe(1);
		expect(b).toEqual(expect.objectContaining({ outcomeUnknown: true, candidateScanIds: [2] }));
	});

	test('another client uploads a different document of the same name meanwhile: never output as ours', async () => {
		// Another client uploads a different "report.pdf" just before ours; our answer is lost.
		const other = jsonOf(
			await run(sb.env(), uploadParams(), [pdf(pdfBytes('other'), 'report.pdf')]),
		)[0];
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		const ours = pdfBytes('ours');
		const result = await run(
			sb.env(),
			uploadParams(),
			[pdf(ours, 'report.pdf'), pdf(pdfBytes(), 'fine.pdf')],
			true,
			LATEST,
		);
		const [mine, fine] = jsonOf(result);
		expect(mine.id).not.toBe(other.id);
		expect(contentOf(mine.id)).toBe(sha256(ours));
		expect(fine).toEqual(expect.objectContaining({ status: 'uploaded' }));
		expect(pairedOf(result)).toEqual([0, 1]);
		expect(credits()).toBe(3);
	});

	test('the same without the fingerprint: no guess, the item fails naming the file, the template and both scan IDs', async () => {
		const other = jsonOf(
			await run(sb.env(), uploadParams(), [pdf(pdfBytes('other'), 'report.pdf')]),
		)[0];
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		const result = await run(sb.env(), uploadParams(), [pdf(pdfBytes('ours'), 'report.pdf')]);
		expect(result.error?.message).toMatch(
			/^Item 0: the upload of "report.pdf" may or may not have been accepted/,
		);
		expect(result.error?.description).toContain(
			`named "report.pdf" made since the upload was sent: 2, ${String(other.id)}.`,
		);
		expect(result.error?.description).toMatch(/not charged twice/);
	});

	test('no answer three times: an error that says the outcome is unknown; never a fourth POST', async () => {
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'drop', times: 3 });
		const result = await run(sb.env(), uploadParams(), [pdf(pdfBytes(), 'gone.pdf')]);
		expect(result.error?.message).toMatch(
			/^Item 0: the upload of "gone.pdf" may or may not have been accepted/,
		);
		expect(result.error?.description).toMatch(
			/No scan of template 1 named "gone.pdf" was listed since the upload was sent/,
		);
		expect(result.error?.description).toMatch(/not charged twice/);
		expect(requestLog().filter((line) => line.startsWith('POST'))).toHaveLength(3);
		expect(credits()).toBe(0);
	});

	test('the first attempt used the last credit and its answer was lost: the 402 on the second names the candidate', async () => {
		sb.get().control.createAccount({ apiKeys: ['sk_test_one_credit'], credits: 1 });
		const env = sb.env({ apiKey: 'sk_test_one_credit' });
		const templateId = sb.get().control.createTemplate({
			apiKey: 'sk_test_one_credit',
			name: 'T',
			extraction_mode: 'scalar',
		}).id;
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		const result = await run(env, uploadParams({ templateId: rl(templateId) }), [
			pdf(pdfBytes(), 'last.pdf'),
		]);
		const stored = sb
			.get()
			.control.requests()
			.find((r) => r.method === 'POST' && r.status === 201);
		expect(stored).toBeDefined();
		expect(result.error?.message).toMatch(
			/^Item 0: the upload of "last.pdf" may or may not have been accepted/,
		);
		expect(result.error?.description).toMatch(
			new RegExp(`named "last.pdf" made since the upload was sent: \\d+\\.`),
		);
		expect(sb.get().control.account('sk_test_one_credit').used_scans).toBe(1);
	});

	test('the same with the fingerprint: the scan the lost attempt made is proven, and output', async () => {
		sb.get().control.createAccount({ apiKeys: ['sk_test_one_credit'], credits: 1 });
		const env = sb.env({ apiKey: 'sk_test_one_credit' });
		const templateId = sb.get().control.createTemplate({
			apiKey: 'sk_test_one_credit',
			name: 'T',
			extraction_mode: 'scalar',
		}).id;
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		const content = pdfBytes();
		const result = await run(
			env,
			uploadParams({ templateId: rl(templateId) }),
			[pdf(content, 'last.pdf')],
			false,
			LATEST,
		);
		expect(result.error).toBeUndefined();
		expect(contentOf(jsonOf(result)[0].id)).toBe(sha256(content));
		expect(sb.get().control.account('sk_test_one_credit').used_scans).toBe(1);
	});
});

describe('"Return Existing Scan" outputs a scan only when its name proves it holds the file', () => {
	test("two different documents named dup.pdf: the one whose name carries the file's fingerprint is output", async () => {
		const mine = pdfBytes('mine');
		const a = jsonOf(await run(sb.env(), returnExisting(), [pdf(mine, 'dup.pdf')]))[0];
		const b = jsonOf(
			await run(sb.env(), returnExisting(), [pdf(pdfBytes('another'), 'dup.pdf')]),
		)[0];
		expect(a.filename).toBe(`dup.ds-${fp(mine)}.pdf`);
		expect(b.id).not.toBe(a.id);
		const result = await run(sb.env(), returnExisting(), [pdf(mine, 'dup.pdf')]);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0].id).toBe(a.id);
		expect(credits()).toBe(2);
	});

	test('two documents named dup.pdf uploaded without the fingerprint: no guess, both IDs named', async () => {
		const mine = pdfBytes('mine');
		const a = jsonOf(await run(sb.env(), uploadParams(), [pdf(mine, 'dup.pdf')]))[0];
		const b = jsonOf(await run(sb.env(), uploadParams(), [pdf(pdfBytes('another'), 'dup.pdf')]))[0];
		const result = await run(sb.env(), returnExisting(), [pdf(mine, 'dup.pdf')], true);
		const [item] = jsonOf(result);
		expect(item.error).toBe(
			`Item 0: the service says "dup.pdf" was already uploaded with template 1; 2 scans of that template have this name but no content fingerprint (scan IDs ${String(b.id)}, ${String(a.id)}), so none is output`,
		);
		expect(credits()).toBe(2);
	});

	test('one scan with the fingerprint: it is output, found across pages, with no credit used', async () => {
		const content = pdfBytes();
		const first = jsonOf(await run(sb.env(), returnExisting(), [pdf(content, 'same.pdf')]))[0];
		sb.get().control.seedScans({ count: 30, template_id: 1 });
		sb.get().control.clearRequests();
		const result = await run(sb.env(), returnExisting(), [pdf(content, 'same.pdf')]);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({
				id: first.id,
				filename: `same.ds-${fp(content)}.pdf`,
				template_id: 1,
			}),
		);
		expect(credits()).toBe(1);
		expect(
			sb
				.get()
				.control.requests()
				.map((r) => `${r.method} ${r.path} ${r.query.page ?? ''}`.trim()),
		).toEqual(['POST /scans', 'GET /scans 1', 'GET /scans 2']);
	});

	test('no scan with the fingerprint or the name: the item fails naming the file and the template', async () => {
		const content = pdfBytes();
		await run(sb.env(), uploadParams(), [pdf(content, 'first-name.pdf')]);
		const result = await run(sb.env(), returnExisting(), [pdf(content, 'renamed.pdf')]);
		expect(result.error?.message).toBe(
			`Item 0: the service says "renamed.pdf" was already uploaded with template 1, but no scan of that template carries this file's fingerprint (".ds-${fp(content)}") or its name`,
		);
		expect(credits()).toBe(1);
	});

	test('a failed scan is not a candidate', async () => {
		const content = pdfBytes();
		const kept = jsonOf(await run(sb.env(), returnExisting(), [pdf(content, 'kept.pdf')]))[0];
		const failed = jsonOf(
			await run(sb.env(), returnExisting(), [pdf(pdfBytes(), 'fail-kept.pdf')]),
		)[0];
		expect(failed.id).not.toBe(kept.id);
		const result = await run(sb.env(), returnExisting(), [pdf(content, 'kept.pdf')]);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0].id).toBe(kept.id);
	});

	test('the same file twice in one batch: both items get the one scan, one credit, no listing', async () => {
		const content = pdfBytes();
		const result = await run(
			sb.env(),
			returnExisting({ options: { onDuplicate: 'returnExisting', concurrency: 1 } }),
			[pdf(content, 'twice.pdf'), pdf(content, 'twice.pdf')],
		);
		expect(result.error).toBeUndefined();
		const [a, b] = jsonOf(result);
		expect(b.id).toBe(a.id);
		expect(pairedOf(result)).toEqual([0, 1]);
		expect(credits()).toBe(1);
		// The repeat is not sent: it waits for the first item's scan. One document to send needs
		// no check of the limits.
		expect(requestLog()).toEqual(['POST /scans 201']);
	});

	test('the same file twice without "Return Existing Scan": the second item\'s 409 names the first item\'s scan', async () => {
		const content = pdfBytes();
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 1 } }),
			[pdf(content, 'twice.pdf'), pdf(content, 'twice.pdf')],
			true,
		);
		const [a, b] = jsonOf(result);
		expect(b.error).toBe(
			`Item 1: "twice.pdf" is the same file as item 0's, which has scan ${String(a.id)} of template 1`,
		);
		expect(String(b.description)).toContain('set "If Already Uploaded" to "Return Existing Scan"');
		expect(b).toEqual(expect.objectContaining({ alreadyUploaded: true, scan_id: a.id }));
		expect(credits()).toBe(1);
		expect(requestLog().filter((line) => line.startsWith('POST'))).toEqual(['POST /scans 201']);
	});
});

describe('file names as the service stores them', () => {
	test('a folder part the service strips: the lost answer is still recovered, not called a duplicate', async () => {
		// The sandbox stores names without their folder by default, as the service may.
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		const content = pdfBytes();
		const result = await run(
			sb.env(),
			uploadParams(),
			[pdf(content, 'dir/inv.pdf')],
			false,
			LATEST,
		);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({ id: 1, filename: `inv.ds-${fp(content)}.pdf` }),
		);
		expect(credits()).toBe(1);
	});

	test('an encoded quote: "Return Existing Scan" finds the scan stored as %22', async () => {
		const content = pdfBytes();
		const first = jsonOf(await run(sb.env(), returnExisting(), [pdf(content, 'say "hi".pdf')]))[0];
		expect(first.filename).toBe(`say %22hi%22.ds-${sha256(content).slice(0, 12)}.pdf`);
		const result = await run(sb.env(), returnExisting(), [pdf(content, 'say "hi".pdf')]);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0].id).toBe(first.id);
	});

	test('a non-ASCII name round-trips: stored and output as "Rechnung Müller.pdf", and recovered after a lost answer', async () => {
		const plain = await run(sb.env(), uploadParams(), [pdf(pdfBytes(), 'Rechnung Müller.pdf')]);
		expect(jsonOf(plain)[0].filename).toBe('Rechnung Müller.pdf');
		expect(sb.get().control.getScan(Number(jsonOf(plain)[0].id))?.filename).toBe(
			'Rechnung Müller.pdf',
		);

		// Another document with the same name loses its answer; its name in decomposed form
		// (u + combining diaeresis), as some file systems give it.
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		const content = pdfBytes();
		const recovered = await run(
			sb.env(),
			uploadParams(),
			[pdf(content, 'Rechnung Mu\u0308ller.pdf')],
			false,
			LATEST,
		);
		expect(recovered.error).toBeUndefined();
		expect(jsonOf(recovered)[0].id).toBe(2);
		expect(contentOf(2)).toBe(sha256(content));
		expect(credits()).toBe(2);
	});
});
