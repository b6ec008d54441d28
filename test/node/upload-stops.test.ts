/**
 * Scan → Upload, issue 24 sections 3 and 4: whatever stops the execution, its error names every
 * scan the execution paid for (file, scan ID, item), in the description a user reads and in the
 * error's context; and with Continue On Fail a failing check of the limits gives each item its
 * paired error item. Real node, n8n-core's engine, the sandbox over HTTP.
 */
import type { IDataObject } from 'n8n-workflow';

import { FAST_WAIT, jsonOf, LATEST, pairedOf, rl, run, uploadParams, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();

const pdfs = (count: number, label = 'stop', json: (i: number) => IDataObject = () => ({})) =>
	Array.from({ length: count }, (_, i) =>
		binaryItem(pdfBytes(`${label} ${i}`), `doc-${i}.pdf`, 'application/pdf', json(i)),
	);
const posts = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.path === '/scans');
const createdOf = (error: { context?: IDataObject } | undefined) =>
	(error?.context?.createdScans ?? []) as IDataObject[];

/** The IDs of every scan the sandbox made from this test's documents (`doc-<n>…`). */
function charged(): number[] {
	const ids: number[] = [];
	for (let id = 1; sb.get().control.getScan(id); id++)
		if (/^doc-\d/.test(sb.get().control.getScan(id)!.filename)) ids.push(id);
	return ids;
}

function expectNamed(error: RunError, created: IDataObject[]) {
	for (const scan of created)
		expect(error?.description).toContain(
			`"${String(scan.fileName)}" → scan ${String(scan.scanId)} (item ${String(scan.itemIndex)})`,
		);
}
type RunError = Awaited<ReturnType<typeof run>>['error'];

describe('section 3: no paid scan left unnamed, whatever stops the execution', () => {
	test("item 0's template is archived (404) while 4 other uploads are in flight: the 404 names the 4 scans charged", async () => {
		const items = pdfs(5, 'archived', (i) => ({ template: i === 0 ? 5 : 1 }));
		const result = await run(
			sb.env(),
			uploadParams({ templateId: rl('={{ $json.template }}'), options: { concurrency: 5 } }),
			items,
		);
		expect(result.error?.message).toMatch(/^Not found/);
		const created = createdOf(result.error);
		expect(created.map((c) => c.itemIndex)).toEqual([1, 2, 3, 4]);
		expect(created.map((c) => c.scanId)).toEqual(charged());
		expectNamed(result.error, created);
	});

	test('one item gets no answer three times: its "may or may not" error names the scans of the items before it', async () => {
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'drop',
			times: 3,
			after: 2,
		});
		const result = await run(sb.env(), uploadParams({ options: { concurrency: 1 } }), pdfs(4));
		expect(result.error?.message).toMatch(/^Item 2: the upload of "doc-2.pdf" may or may not/);
		const created = createdOf(result.error);
		expect(created.map((c) => c.itemIndex)).toEqual([0, 1]);
		expectNamed(result.error, created);
	});

	test('with Wait for Completion one scan fails processing: the node fails at once, naming every scan the execution created', async () => {
		sb.get().control.setNextOutcomes(['completed', 'failed', 'completed']);
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: { ...FAST_WAIT } }),
			pdfs(3),
		);
		expect(result.error?.message).toMatch(/^Item 1: scan \d+ failed/);
		const created = createdOf(result.error);
		expect(created.map((c) => c.itemIndex)).toEqual([0, 1, 2]);
		expectNamed(result.error, created);
	});

	test.each([
		[1, 'exact names: it is named as an upload that may or may not have made a scan'],
		[
			LATEST,
			'with the fingerprint: the lost answer is proven and its scan named among the created ones',
		],
	])(
		'an upload stored but its answer lost, whose re-send meets the 429 another item triggered (node version %s; %s)',
		async (typeVersion) => {
			sb.get().control.seedUploads({ count: 196 });
			// doc-0 is uploaded; doc-1 is stored, its answer lost; another client takes the last 2 slots.
			sb.get().control.addFault({
				method: 'POST',
				path: '^/scans$',
				kind: 'dropAfterCommit',
				after: 1,
			});
			sb.get().control.takeAfterUploads({ after: 2, slots: 2 });
			const result = await run(
				sb.env(),
				uploadParams({ options: { concurrency: 1 } }),
				pdfs(4),
				false,
				typeVersion,
			);
			const created = createdOf(result.error);
			expectNamed(result.error, created);
			if (typeVersion === 1) {
				expect(result.error?.message).toMatch(/^Item 1: the upload of "doc-1.pdf" may or may not/);
				expect(created.map((c) => c.itemIndex)).toEqual([0]);
			} else {
				// doc-1's scan is proven; its re-send's 429 closed the uploads, so doc-2 was not sent.
				expect(created.map((c) => c.itemIndex)).toEqual([0, 1]);
				expect(result.error?.message).toMatch(
					/^Item 2: not uploaded: the service refused an upload of this execution \(HTTP 429/,
				);
			}
			if (typeVersion === 1) {
				// doc-1's scan cannot be proven: its own error names the scan that may be it.
				const [doc0, doc1] = charged();
				expect(result.error?.description).toContain(
					`named "doc-1.pdf" made since the upload was sent: ${doc1}.`,
				);
				expect(created.map((c) => c.scanId)).toEqual([doc0]);
			} else {
				expect(created.map((c) => c.scanId)).toEqual(charged());
			}
		},
	);

	test('with Continue On Fail the same stop gives each item its own item: the unknown outcome, the scan, the ones not uploaded', async () => {
		sb.get().control.seedUploads({ count: 196 });
		// doc-0 stored with its answer lost and no listing to prove it; doc-1 uploaded; doc-2 refused.
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'drop', times: 2 });
		// The hour's count reads 8 pages; the look for doc-0's scan after it then fails.
		sb.get().control.addFault({
			method: 'GET',
			path: '^/scans$',
			kind: 'status',
			status: 503,
			after: 8,
			times: 4,
		});
		sb.get().control.takeAfterUploads({ after: 2, slots: 2 });
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 1 } }),
			pdfs(4),
			true,
		);
		const out = jsonOf(result);
		expect(pairedOf(result)).toEqual([0, 1, 2, 3]);
		expect(out[0]).toEqual(expect.objectContaining({ outcomeUnknown: true }));
		expect(out[1].id).toBeDefined();
		expect(out.slice(2).every((o) => o.notUploaded === true)).toBe(true);
	});
});

describe('section 4: Continue On Fail when the check of the limits fails', () => {
	test.each([
		['GET /account answers 503', { method: 'GET', path: '^/account$' }],
		['the hour count (GET /scans) answers 503', { method: 'GET', path: '^/scans$' }],
	])(
		'%s: every item gets its paired error item saying nothing was uploaded',
		async (_label, where) => {
			sb.get().control.addFault({ ...where, kind: 'status', status: 503, times: 10 });
			const result = await run(sb.env(), uploadParams(), pdfs(3), true);
			const out = jsonOf(result);
			expect(pairedOf(result)).toEqual([0, 1, 2]);
			out.forEach((item, i) => {
				expect(item.error).toMatch(
					new RegExp(
						`^Item ${i}: not uploaded: the check of the account's credit and hourly uploads failed: `,
					),
				);
				expect(item).toEqual(
					expect.objectContaining({ notUploaded: true, reason: 'limitsCheck', retryAfter: null }),
				);
				expect(item.description).toContain('nothing was uploaded and no credit was used');
			});
			expect(posts()).toHaveLength(0);
		},
	);

	test("without Continue On Fail the node fails with the check's error, before any upload", async () => {
		sb.get().control.addFault({
			method: 'GET',
			path: '^/account$',
			kind: 'status',
			status: 503,
			times: 10,
		});
		const result = await run(sb.env(), uploadParams(), pdfs(3));
		expect(result.error?.message).toMatch(/503|unavailable|Service/i);
		expect(posts()).toHaveLength(0);
	});
});
