/**
 * Scan → Upload with "If Already Uploaded" = "Return Existing Scan" on a large, busy account
 * (issue 16, sections 2 and 3): one listing of the template per execution whatever the number
 * of documents, no cap that makes a re-run impossible, and never another document's scan.
 * Every case runs the real node in n8n-core against the sandbox over HTTP.
 */
import { createHash } from 'crypto';

import { DEFAULT_API_KEY } from '../../sandbox/server';
import { jsonOf, pairedOf, run, uploadParams, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();
/** Older scans: outside the rolling hour the node counts before uploading. */
const TWO_HOURS = 2 * 60 * 60 * 1000;

const returnExisting = (options: Record<string, unknown> = {}) =>
	uploadParams({ options: { onDuplicate: 'returnExisting', ...options } });
const pdf = (content: Buffer, name: string) => binaryItem(content, name, 'application/pdf');
const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');
const fp = (content: Buffer) => sha256(content).slice(0, 12);
const credits = () => sb.get().control.account().used_scans;
const contentOf = (scanId: unknown) => sb.get().control.getScan(Number(scanId))?.contentSha256;
/** Listings of the template (the hourly check before a batch lists the account's scans of the last hour, without a template). */
const listingRequests = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'GET' && r.path === '/scans' && r.query.template_id !== undefined);
const docs = (count: number, label: string) =>
	Array.from({ length: count }, (_, i) => ({
		bytes: pdfBytes(`${label}-${i}`),
		name: `Invoice-${String(i).padStart(3, '0')}.pdf`,
	}));

describe("section 3: never another document's scan", () => {
	test('reproduction: A\'s bytes arrive as "scan.pdf" while "scan.pdf" is another document (B): B is not output', async () => {
		const a = pdfBytes('A');
		// History from before the fingerprint (no marker in the names): A as Invoice-2024-03.pdf, B as scan.pdf.
		const [scanA] = sb
			.get()
			.control.seedScans({ count: 1, filename: 'Invoice-2024-03.pdf', content_sha256: sha256(a) });
		const [scanB] = sb.get().control.seedScans({ count: 1, filename: 'scan.pdf' });
		const c = pdfBytes('C');
		const result = await run(
			sb.env(),
			returnExisting(),
			[pdf(a, 'scan.pdf'), pdf(c, 'other.pdf')],
			true,
		);
		const [item, other] = jsonOf(result);
		expect(item.id).toBeUndefined();
		expect(JSON.stringify(item)).not.toContain(`"id":${scanB}`);
		expect(item.error).toBe(
			`Item 0: the service says "scan.pdf" was already uploaded with template 1; 1 scan of that template has this name but no content fingerprint (scan IDs ${scanB}), so none is output`,
		);
		expect(item.description).toMatch(
			/a file name alone does not prove which document a scan holds/,
		);
		expect(item.description).toMatch(/Scan → Get/);
		expect(other.filename).toBe(`other.ds-${fp(c)}.pdf`);
		expect(pairedOf(result)).toEqual([0, 1]);
		expect(scanA).not.toBe(scanB);
		expect(credits()).toBe(1);
	});

	test("the same history uploaded by the node: A's own scan is output under any name, proven by the fingerprint", async () => {
		const a = pdfBytes('A');
		const first = jsonOf(
			await run(sb.env(), returnExisting(), [
				pdf(a, 'Invoice-2024-03.pdf'),
				pdf(pdfBytes('B'), 'scan.pdf'),
			]),
		);
		expect(first.map((scan) => scan.filename)).toEqual([
			`Invoice-2024-03.ds-${fp(a)}.pdf`,
			expect.stringMatching(/^scan\.ds-[0-9a-f]{12}\.pdf$/),
		]);
		const result = await run(sb.env(), returnExisting(), [pdf(a, 'scan.pdf')]);
		expect(result.error).toBeUndefined();
		const [scan] = jsonOf(result);
		expect(scan.id).toBe(first[0].id);
		expect(contentOf(scan.id)).toBe(sha256(a));
		expect(credits()).toBe(2);
	});

	test("without Continue On Fail the node fails with the item's error; nothing is output, no credit used", async () => {
		const a = pdfBytes('A');
		sb.get().control.seedScans({
			count: 1,
			filename: 'Invoice-2024-03.pdf',
			content_sha256: sha256(a),
		});
		sb.get().control.seedScans({ count: 1, filename: 'scan.pdf' });
		const result = await run(sb.env(), returnExisting(), [pdf(a, 'scan.pdf')]);
		expect(result.output).toEqual([]);
		expect(result.error?.message).toMatch(
			/^Item 0: the service says "scan.pdf" was already uploaded with template 1; 1 scan/,
		);
		expect(credits()).toBe(0);
	});
});

describe('section 2: a re-run costs one listing', () => {
	async function firstRun(documents: Array<{ bytes: Buffer; name: string }>) {
		const result = await run(
			sb.env(),
			returnExisting({ concurrency: 10 }),
			documents.map((d) => pdf(d.bytes, d.name)),
		);
		expect(result.error).toBeUndefined();
		return jsonOf(result);
	}

	test.each(['data', 'bare'] as const)(
		'60 documents against 1,500 older scans (%s envelope): at most the page count plus a few listing requests, each item its own scan',
		async (envelope) => {
			sb.get().control.setOptions({ envelope });
			sb.get().control.seedScans({ count: 1500, age_ms: TWO_HOURS });
			const documents = docs(60, envelope);
			const first = await firstRun(documents);
			sb.get().control.clearRequests();

			const rerun = await run(
				sb.env(),
				returnExisting({ concurrency: 10 }),
				documents.map((d) => pdf(d.bytes, d.name)),
			);
			expect(rerun.error).toBeUndefined();
			expect(jsonOf(rerun).map((scan) => scan.id)).toEqual(first.map((scan) => scan.id));
			for (const [i, scan] of jsonOf(rerun).entries())
				expect(contentOf(scan.id)).toBe(sha256(documents[i].bytes));
			expect(credits()).toBe(60);
			const pages = Math.ceil(1560 / 25);
			// Without meta the end shows only by reading past it: at most one look-ahead round (8 pages).
			expect(listingRequests().length).toBeGreaterThanOrEqual(pages);
			expect(listingRequests().length).toBeLessThanOrEqual(pages + (envelope === 'bare' ? 8 : 2));
			expect(
				sb
					.get()
					.control.requests()
					.filter((r) => r.method === 'POST'),
			).toHaveLength(60);
		},
	);

	test('more than 10,000 scans: the re-run works and reads the template once', async () => {
		sb.get().control.seedScans({ count: 10_100, age_ms: TWO_HOURS });
		const documents = docs(3, 'large');
		const first = await firstRun(documents);
		sb.get().control.clearRequests();
		const rerun = await run(
			sb.env(),
			returnExisting(),
			documents.map((d) => pdf(d.bytes, d.name)),
		);
		expect(rerun.error).toBeUndefined();
		expect(jsonOf(rerun).map((scan) => scan.id)).toEqual(first.map((scan) => scan.id));
		expect(listingRequests()).toHaveLength(Math.ceil(10_103 / 25));
	}, 60_000);

	test('more than 100,000 scans: the guard stops the listing, and its error names the upload and its option', async () => {
		const bytes = pdfBytes('huge');
		sb.get().control.seedScans({ count: 1, filename: 'huge.pdf', content_sha256: sha256(bytes) });
		sb.get().control.seedScans({ count: 100_000, age_ms: TWO_HOURS });
		sb.get().control.clearRequests();
		const result = await run(sb.env(), returnExisting(), [pdf(bytes, 'huge.pdf')]);
		expect(result.error?.message).toBe(
			'Item 0: template 1 has more than 4000 pages of scans (100000); the node stopped looking for the scan of "huge.pdf"',
		);
		expect(result.error?.description).toMatch(
			/"If Already Uploaded" set to "Return Existing Scan"/,
		);
		expect(result.error?.description).not.toMatch(/Return All|Filters/);
		// meta gives the page count: page 1 alone shows the listing is beyond the guard.
		expect(listingRequests()).toHaveLength(1);
		expect(credits()).toBe(0);
	}, 60_000);

	test('a scan another client created after the listing was read is found by re-reading only the newest pages', async () => {
		sb.get().control.seedScans({ count: 60, age_ms: TWO_HOURS });
		const known = pdfBytes('known');
		const late = pdfBytes('late');
		await firstRun([{ bytes: known, name: 'known.pdf' }]);
		// The history is a minute old on the service's clock.
		sb.get().control.advanceClock(60_000);
		sb.get().control.clearRequests();
		// Item 1's upload is held back until another client of the account has uploaded the same bytes.
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'latency',
			latencyMs: 3000,
			after: 1,
		});
		const running = run(sb.env(), returnExisting({ concurrency: 1 }), [
			pdf(known, 'known.pdf'),
			pdf(late, 'late.pdf'),
		]);
		await until(
			() =>
				sb
					.get()
					.control.requests()
					.filter((r) => r.method === 'POST').length === 2,
		);
		expect(listingRequests().length).toBeGreaterThan(0);
		const form = new FormData();
		form.append('template_id', '1');
		form.append('file', new Blob([late]), `late.ds-${fp(late)}.pdf`);
		const theirs = await fetch(`${sb.get().baseUrl}/scans`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${DEFAULT_API_KEY}` },
			body: form,
		});
		expect(theirs.status).toBe(201);
		const theirId = ((await theirs.json()) as { data: { id: number } }).data.id;

		const result = await running;
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[1].id).toBe(theirId);
		// The full listing once (3 pages), then page 1 again for the scan created since.
		expect(listingRequests().map((r) => r.query.page)).toEqual(['1', '2', '3', '1']);
		expect(credits()).toBe(2);
	}, 30_000);
});

/** Waits for a condition the sandbox's state will reach (no fixed sleeps). */
async function until(condition: () => boolean, timeoutMs = 20_000) {
	const end = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > end) throw new Error('condition not reached');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
