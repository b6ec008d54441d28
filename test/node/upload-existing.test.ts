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

describe('a re-run pays for how far back its scans are (issue 26, section 1)', () => {
	const HOUR = 60 * 60 * 1000;

	async function firstRun(documents: Array<{ bytes: Buffer; name: string }>) {
		const result = await run(
			sb.env(),
			returnExisting({ concurrency: 10 }),
			documents.map((d) => pdf(d.bytes, d.name)),
		);
		expect(result.error).toBeUndefined();
		return jsonOf(result);
	}

	async function rerun(documents: Array<{ bytes: Buffer; name: string }>) {
		sb.get().control.clearRequests();
		const result = await run(
			sb.env(),
			returnExisting({ concurrency: 10 }),
			documents.map((d) => pdf(d.bytes, d.name)),
		);
		expect(result.error).toBeUndefined();
		return result;
	}

	const posts = () =>
		sb
			.get()
			.control.requests()
			.filter((r) => r.method === 'POST');

	test.each(['data', 'bare'] as const)(
		'right after the first run (%s envelope): the hour the limit check read proves every document; no upload, no template listing',
		async (envelope) => {
			sb.get().control.setOptions({ envelope });
			sb.get().control.seedScans({ count: 1500, age_ms: TWO_HOURS });
			const documents = docs(60, envelope);
			const first = await firstRun(documents);
			const result = await rerun(documents);
			expect(jsonOf(result).map((scan) => scan.id)).toEqual(first.map((scan) => scan.id));
			for (const [i, scan] of jsonOf(result).entries())
				expect(contentOf(scan.id)).toBe(sha256(documents[i].bytes));
			expect(credits()).toBe(60);
			expect(listingRequests()).toHaveLength(0);
			expect(posts()).toHaveLength(0);
		},
	);

	test.each(['data', 'bare'] as const)(
		'an hour later (%s envelope): 60 documents over 1,500 older scans read the 3 pages their scans are on',
		async (envelope) => {
			sb.get().control.setOptions({ envelope });
			sb.get().control.seedScans({ count: 1500, age_ms: TWO_HOURS });
			const documents = docs(60, envelope);
			const first = await firstRun(documents);
			sb.get().control.advanceClock(HOUR + 60_000);
			const result = await rerun(documents);
			expect(jsonOf(result).map((scan) => scan.id)).toEqual(first.map((scan) => scan.id));
			expect(credits()).toBe(60);
			// The 60 scans are the newest: pages 1 to 3, read once each, one after the other.
			expect(listingRequests().map((r) => r.query.page)).toEqual(['1', '2', '3']);
			expect(posts().every((r) => r.status === 409)).toBe(true);
		},
	);

	test('a day later, after 100 other scans of the template: the pages down to the oldest scan it needs', async () => {
		sb.get().control.seedScans({ count: 1500, age_ms: TWO_HOURS });
		const documents = docs(60, 'day');
		const first = await firstRun(documents);
		sb.get().control.advanceClock(12 * HOUR);
		sb.get().control.seedScans({ count: 100, template_id: 1 });
		sb.get().control.advanceClock(12 * HOUR);
		const result = await rerun(documents);
		expect(jsonOf(result).map((scan) => scan.id)).toEqual(first.map((scan) => scan.id));
		// 160 scans above the oldest one needed: 7 pages.
		expect(listingRequests()).toHaveLength(Math.ceil(160 / 25));
	});

	test('more than 10,000 scans: the first page the limit check reads holds the 3 scans; no template listing', async () => {
		sb.get().control.seedScans({ count: 10_100, age_ms: TWO_HOURS });
		const documents = docs(3, 'large');
		const first = await firstRun(documents);
		sb.get().control.advanceClock(HOUR + 60_000);
		const result = await rerun(documents);
		expect(jsonOf(result).map((scan) => scan.id)).toEqual(first.map((scan) => scan.id));
		// The hour's count reads the account's newest page (its scans are all older than an hour,
		// so it stops there) and finds the 3 scans on it.
		expect(listingRequests()).toHaveLength(0);
		expect(posts()).toHaveLength(0);
	}, 60_000);

	test('a file whose earlier upload carries no fingerprint: the listing is read to its end to prove it, then the item fails naming the scans of its name', async () => {
		const bytes = pdfBytes('legacy');
		const [legacy] = sb
			.get()
			.control.seedScans({ count: 1, filename: 'legacy.pdf', content_sha256: sha256(bytes) });
		sb.get().control.seedScans({ count: 1000, age_ms: TWO_HOURS });
		sb.get().control.clearRequests();
		const result = await run(sb.env(), returnExisting(), [pdf(bytes, 'legacy.pdf')]);
		expect(result.error?.message).toBe(
			`Item 0: the service says "legacy.pdf" was already uploaded with template 1; 1 scan of that template has this name but no content fingerprint (scan IDs ${legacy}), so none is output`,
		);
		// 1,001 scans: 41 pages, read after the 409, so nothing made before it is missed.
		expect(listingRequests()).toHaveLength(41);
		expect(credits()).toBe(0);
	}, 60_000);

	test('a scan another client created after the listing was read is found by re-reading only the newest pages', async () => {
		sb.get().control.seedScans({ count: 60, age_ms: TWO_HOURS });
		// A history from before the fingerprint: this file's scan cannot be proven, so the listing
		// is read to its end for item 0.
		const legacy = pdfBytes('legacy');
		sb.get().control.seedScans({
			count: 1,
			filename: 'legacy.pdf',
			content_sha256: sha256(legacy),
			age_ms: TWO_HOURS,
		});
		const late = pdfBytes('late');
		sb.get().control.clearRequests();
		// Item 1's upload is held back until another client of the account has uploaded the same bytes.
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'latency',
			latencyMs: 3000,
			after: 1,
		});
		const running = run(
			sb.env(),
			returnExisting({ concurrency: 1 }),
			[pdf(legacy, 'legacy.pdf'), pdf(late, 'late.pdf')],
			true,
		);
		await until(
			() =>
				sb
					.get()
					.control.requests()
					.filter((r) => r.method === 'POST').length === 2,
		);
		expect(listingRequests().map((r) => r.query.page)).toEqual(['1', '2', '3']);
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
		expect(jsonOf(result)[0].error).toMatch(/no content fingerprint/);
		expect(jsonOf(result)[1].id).toBe(theirId);
		// The full listing once for item 0 (3 pages), then page 1 again for item 1's scan, made
		// after the listing was read.
		expect(listingRequests().map((r) => r.query.page)).toEqual(['1', '2', '3', '1']);
		expect(credits()).toBe(1);
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
