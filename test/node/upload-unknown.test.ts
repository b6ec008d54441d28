/**
 * Issue 32 §3 and §4: after a lost answer, a busy template does not hide the scan the lost
 * attempt paid for (a page of scans already read means the listing moved, never that it ended),
 * and every path where an upload may have been stored ends as "outcome unknown" with its
 * candidates: in the item under Continue On Fail, and in the stop error's message and context,
 * the stopping item's own upload included. Through n8n-core's engine against the sandbox.
 */
import { createHash } from 'crypto';

import { jsonOf, LATEST, rl, run, uploadParams, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();

const pdf = (content: Buffer, name: string) => binaryItem(content, name, 'application/pdf');
const fp = (content: Buffer) => createHash('sha256').update(content).digest('hex').slice(0, 12);
const credits = () => sb.get().control.account().used_scans;

/**
 * The first upload's answer is lost after the scan was stored (scan 1); before the node's first
 * read of the template's scans 30 other scans arrive, and 25 more before its second read, so
 * page 2 holds exactly what page 1 held.
 */
function lostWhileTheTemplateIsBusy(firstListing = 0) {
	sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
	sb.get().control.duringListing(firstListing, { create: { count: 30, template_id: 1 } });
	sb.get().control.duringListing(firstListing + 1, { create: { count: 25, template_id: 1 } });
}

describe.each(['data', 'bare'] as const)('§3 a busy template (%s envelope)', (envelope) => {
	beforeEach(() => sb.get().control.reset({ envelope }));

	test('version 1.1: the scan the lost attempt made is found beyond the repeated page, one credit', async () => {
		const content = pdfBytes('busy');
		lostWhileTheTemplateIsBusy();
		const result = await run(sb.env(), uploadParams(), [pdf(content, 'busy.pdf')], true, LATEST);
		expect(jsonOf(result)).toEqual([
			expect.objectContaining({ id: 1, filename: `busy.ds-${fp(content)}.pdf` }),
		]);
		expect(credits()).toBe(1);
	});

	test('version 1 (exact name): the item names the scan that may be it, never "no credit was used"', async () => {
		lostWhileTheTemplateIsBusy();
		const result = await run(sb.env(), uploadParams(), [pdf(pdfBytes('v1'), 'busy.pdf')], true);
		const [item] = jsonOf(result);
		expect(item).toMatchObject({ outcomeUnknown: true, candidateScanIds: [1] });
		expect(JSON.stringify(item)).not.toMatch(/no credit was used|an earlier upload/);
		expect(credits()).toBe(1);
	});
});

test('§3 "Return Existing Scan": the recovered scan is paid for, so a later stop names it', async () => {
	const content = pdfBytes('named');
	// The check before the batch reads one page of the hour first.
	lostWhileTheTemplateIsBusy(1);
	const result = await run(
		sb.env(),
		uploadParams({
			templateId: rl('={{ $json.template }}'),
			options: { onDuplicate: 'returnExisting' },
		}),
		[
			{ ...pdf(content, 'named.pdf'), json: { template: 1 } },
			{ ...pdf(pdfBytes('archived'), 'archived.pdf'), json: { template: 5 } },
		],
		false,
		LATEST,
	);
	expect(result.error?.message).toMatch(/^Not found.*\(item 1\)$/);
	expect(result.error?.context?.createdScans).toEqual([
		{ itemIndex: 0, fileName: 'named.pdf', scanId: 1 },
	]);
	expect(result.error?.description).toContain('"named.pdf" → scan 1 (item 0)');
});

describe('§4 the answer is lost, the re-send gets a 409, the template listing answers 503', () => {
	beforeEach(() => {
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		sb.get().control.addFault({
			method: 'GET',
			path: '^/scans$',
			kind: 'status',
			status: 503,
			times: 4,
		});
	});

	test('the stop error says the outcome is unknown and names the upload in its context', async () => {
		const result = await run(
			sb.env(),
			uploadParams(),
			[pdf(pdfBytes('503'), 'a.pdf')],
			false,
			LATEST,
		);
		expect(result.error?.message).toBe(
			'Item 0: the upload of "a.pdf" may or may not have been accepted: a re-send was answered HTTP 409 (This file was already uploaded with this template)',
		);
		expect(result.error?.description).toMatch(
			/could not be read either \(The Document Scanning service had an internal error \(HTTP 503\)/,
		);
		expect(result.error?.context?.uncertainUploads).toEqual([
			{ itemIndex: 0, fileName: 'a.pdf', candidateScanIds: null },
		]);
		expect(credits()).toBe(1);
	});

	test('with Continue On Fail the item carries outcomeUnknown', async () => {
		const result = await run(
			sb.env(),
			uploadParams(),
			[pdf(pdfBytes('cof'), 'a.pdf')],
			true,
			LATEST,
		);
		expect(jsonOf(result)).toEqual([
			expect.objectContaining({ outcomeUnknown: true, candidateScanIds: null }),
		]);
	});
});
