/**
 * Unit tests of one upload (upload/sendUpload.ts with candidates, existingScan, errors
 * and scanListing behind it), importing the sources so that mutation testing sees them. The
 * fakes: n8n's request helper (./upload-fake.ts) and the pause before a resend, which answers
 * at once and records how long it was asked to wait (no test sleeps).
 */
import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { emptyListing } from '../../nodes/DocumentScanning/upload/scanListing';
import type { UploadRequest } from '../../nodes/DocumentScanning/upload/sendUpload';
import {
	sendUpload,
	sentNameOf,
	UPLOAD_ATTEMPTS,
} from '../../nodes/DocumentScanning/upload/sendUpload';
import { limitStatusOf } from '../../nodes/DocumentScanning/upload/errors';
import { fakeApi } from './upload-fake';

const pauses: number[] = [];
let pauseAnswer = true;
jest.mock('../../nodes/shared/pause', () => ({
	...jest.requireActual('../../nodes/shared/pause'),
	pauseWithin: async (ms: number) => {
		pauses.push(ms);
		return pauseAnswer;
	},
}));

beforeEach(() => {
	pauses.length = 0;
	pauseAnswer = true;
});

const BYTES = Buffer.from('%PDF-1.4 invoice 42');
const SHA = createHash('sha256').update(BYTES).digest('hex');
const FP = SHA.slice(0, 12);

function upload(extra: Partial<UploadRequest> = {}, fileName = 'Invoice.pdf'): UploadRequest {
	return {
		templateId: 7,
		itemIndex: 2,
		returnExisting: false,
		file: {
			fileName,
			size: BYTES.length,
			mimeType: 'application/pdf',
			sha256: SHA,
			open: async () => BYTES,
		},
		scope: { claimedScanIds: new Set(), uploadedFiles: new Map(), scanListings: new Map() },
		...extra,
	};
}

const error = async (promise: Promise<unknown>) =>
	(await promise.then(
		() => {
			throw new Error('expected a failure');
		},
		(e: unknown) => e,
	)) as Error & { description?: string; httpCode?: string | null };

test('UPLOAD_ATTEMPTS is 3', () => {
	expect(UPLOAD_ATTEMPTS).toBe(3);
});

test('sentNameOf: the fingerprint only with "Return Existing Scan"', () => {
	expect(sentNameOf(upload())).toBe('Invoice.pdf');
	expect(sentNameOf(upload({ returnExisting: true }))).toBe(`Invoice.ds-${FP}.pdf`);
});

describe('the first answer arrives', () => {
	test('the scan is returned and claimed; one POST with the template, the name and a long timeout', async () => {
		const api = fakeApi();
		const request = upload();
		const scan = await sendUpload.call(api.ctx, request);
		expect(scan).toMatchObject({ id: 1000, filename: 'Invoice.pdf', template_id: 7 });
		expect(api.sent).toHaveLength(1);
		expect(api.sent[0]).toMatchObject({
			method: 'POST',
			url: '/scans',
			fileName: 'Invoice.pdf',
			templateField: '7',
			timeout: 120_000,
		});
		expect([...request.scope.claimedScanIds]).toEqual([1000]);
		expect(request.scope.uploadedFiles.get(`7:${SHA}`)).toBe(scan);
		expect(pauses).toEqual([]);
	});

	test('with "Return Existing Scan" the fingerprinted name is sent', async () => {
		const api = fakeApi();
		await sendUpload.call(api.ctx, upload({ returnExisting: true }));
		expect(api.sent[0].fileName).toBe(`Invoice.ds-${FP}.pdf`);
	});

	test('a scan without an ID is returned, not claimed', async () => {
		const api = fakeApi();
		const ctx = api.ctx as unknown as { helpers: { httpRequestWithAuthentication: unknown } };
		ctx.helpers.httpRequestWithAuthentication = async () => ({
			statusCode: 201,
			headers: {},
			body: { status: 'processing' },
		});
		const request = upload();
		expect(await sendUpload.call(api.ctx, request)).toEqual({ status: 'processing' });
		expect(request.scope.claimedScanIds.size).toBe(0);
	});

	test('a refusal (400) is thrown as it is: no resend, no listing', async () => {
		const api = fakeApi({ posts: [400] });
		const e = await error(sendUpload.call(api.ctx, upload()));
		expect(e.httpCode).toBe('400');
		expect(api.sent).toHaveLength(1);
	});
});

describe('the answer is lost', () => {
	test('the file is sent again; a 409 then finds the one scan created since the first attempt', async () => {
		const api = fakeApi({ posts: ['create-lost', 409] });
		const request = upload();
		// An older scan of the same name, and newer ones that do not match.
		api.addScan({ filename: 'Invoice.pdf', created_at: api.iso(Date.now() - 60_000) });
		const scan = await sendUpload.call(api.ctx, request);
		expect(scan).toMatchObject({ id: 1001, filename: 'Invoice.pdf' });
		expect(pauses).toEqual([1000]);
		expect(api.sent.map((s) => s.method)).toEqual(['POST', 'POST', 'GET']);
		expect(api.sent[2].qs).toEqual({ template_id: 7, page: 1 });
		expect(request.scope.claimedScanIds.has(1001)).toBe(true);
	});

	test('failed, claimed, other-template and other-name scans are no candidates', async () => {
		const api = fakeApi({ posts: ['create-lost', 409] });
		const request = upload();
		api.addScan({ filename: 'Invoice.pdf', status: 'failed' });
		api.addScan({ filename: 'Other.pdf' });
		const claimed = api.addScan({ filename: 'Invoice.pdf' });
		request.scope.claimedScanIds.add(claimed.id);
		const scan = await sendUpload.call(api.ctx, request);
		expect(scan.id).toBe(1003);
	});

	test('two candidates: the node does not guess', async () => {
		const api = fakeApi({ posts: ['create-lost', 409] });
		api.addScan({ filename: 'Invoice.pdf' });
		const e = await error(sendUpload.call(api.ctx, upload()));
		expect(e.message).toBe(
			'Item 2: 2 scans of template 7 could be the scan of "Invoice.pdf" (scan IDs 1001, 1000)',
		);
		expect(e.description).toMatch(/^The answer to the upload was lost/);
	});

	test('no candidate since the first attempt: the 409 is about an earlier upload', async () => {
		const api = fakeApi({ posts: ['lost', 409] });
		api.addScan({ filename: 'Invoice.pdf', created_at: api.iso(Date.now() - 60_000) });
		const e = await error(sendUpload.call(api.ctx, upload()));
		expect(e.httpCode).toBe('409');
	});

	test('never answered: three attempts, pauses of 1 s and 2 s, then a clear error naming what was found', async () => {
		const api = fakeApi({ posts: ['lost', 'lost', 'lost'] });
		const e = await error(sendUpload.call(api.ctx, upload()));
		expect(pauses).toEqual([1000, 2000]);
		expect(api.sent.map((s) => s.method)).toEqual(['POST', 'POST', 'POST', 'GET']);
		expect(e.message).toMatch(
			/^Item 2: the upload of "Invoice.pdf" may or may not have been accepted: /,
		);
		expect(e.description).toContain(
			'No scan named "Invoice.pdf" was created for template 7 since the upload was sent',
		);
	});

	test('a 500 is an unknown outcome too; candidates found are named', async () => {
		const api = fakeApi({ posts: ['create-lost', 500, 500] });
		const e = await error(sendUpload.call(api.ctx, upload()));
		expect(pauses).toEqual([1000, 2000]);
		expect(e.description).toContain(
			'Scans of template 7 named "Invoice.pdf" created since the upload was sent: 1000. Check whether one of them is this document',
		);
	});

	test('a refusal after a lost answer: the outcome of the first attempt is still unknown', async () => {
		const api = fakeApi({ posts: ['lost', 400] });
		const e = await error(sendUpload.call(api.ctx, upload()));
		expect(pauses).toEqual([1000]);
		expect(api.sent.map((s) => s.method)).toEqual(['POST', 'POST', 'GET']);
		expect(e.message).toMatch(/may or may not have been accepted: /);
	});

	test('a limit (429, 402) that refuses the re-send is told to the upload gate; another refusal is not', async () => {
		for (const [status, limit] of [
			[429, 429],
			[402, 402],
			[400, undefined],
			[500, undefined],
		] as const) {
			const api = fakeApi({ posts: ['lost', status, status] });
			const e = await error(sendUpload.call(api.ctx, upload()));
			expect(e.message).toMatch(/may or may not have been accepted: /);
			expect(limitStatusOf(e)).toBe(limit);
		}
		expect(limitStatusOf(new Error('plain'))).toBeUndefined();
	});

	test('cancelled during the pause: no resend, the error says to check', async () => {
		pauseAnswer = false;
		const api = fakeApi({ posts: ['lost'], listingFails: true });
		const e = await error(sendUpload.call(api.ctx, upload()));
		expect(api.sent.filter((s) => s.method === 'POST')).toHaveLength(1);
		expect(e.description).toContain(
			'Check with Scan → Get Many (template 7) whether a scan named "Invoice.pdf" was created',
		);
	});
});

describe('409 on the first attempt', () => {
	test('without "Return Existing Scan": the conflict is thrown, nothing listed', async () => {
		const api = fakeApi({ posts: [409] });
		const e = await error(sendUpload.call(api.ctx, upload()));
		expect(e.httpCode).toBe('409');
		expect(api.sent).toHaveLength(1);
	});

	test('another item of the execution uploaded the same bytes: its scan, or an error naming it', async () => {
		const sibling = { id: 55, filename: 'Invoice.pdf' };
		const api = fakeApi({ posts: [409, 409] });
		const request = upload({ returnExisting: true });
		request.scope.uploadedFiles.set(`7:${SHA}`, sibling);
		const copy = await sendUpload.call(api.ctx, request);
		expect(copy).toEqual(sibling);
		expect(copy).not.toBe(sibling);
		const plain = upload();
		plain.scope.uploadedFiles.set(`7:${SHA}`, sibling);
		const e = await error(sendUpload.call(api.ctx, plain));
		expect(e.description).toBe(
			'Another item of this execution uploaded the same file as scan 55. No credit was used for this item. To output that scan for this item too, set the option "If Already Uploaded" to "Return Existing Scan".',
		);
		// Other bytes or another template are not that sibling.
		const other = upload();
		other.scope.uploadedFiles.set(`8:${SHA}`, sibling);
		expect(
			(await error(sendUpload.call(fakeApi({ posts: [409] }).ctx, other))).description,
		).not.toContain('scan 55');
	});

	test('"Return Existing Scan" outputs the one scan carrying the fingerprint, at any age', async () => {
		const api = fakeApi({ posts: [409] });
		api.addScan({ filename: 'Invoice.pdf' });
		const mine = api.addScan({
			filename: `Invoice.ds-${FP}.pdf`,
			created_at: '2020-01-01T00:00:00Z',
		});
		api.addScan({ filename: `Invoice.ds-${FP}.pdf`, status: 'failed' });
		api.addScan({ filename: `Invoice.ds-${FP}.pdf`, template_id: 8 });
		const request = upload({ returnExisting: true });
		const scan = await sendUpload.call(api.ctx, request);
		expect(scan).toEqual(mine);
		expect(request.scope.claimedScanIds.has(mine.id)).toBe(true);
	});

	test('two scans with the fingerprint: ambiguous', async () => {
		const api = fakeApi({ posts: [409] });
		api.addScan({ filename: `Invoice.ds-${FP}.pdf` });
		api.addScan({ filename: `Invoice.ds-${FP}.pdf` });
		const e = await error(sendUpload.call(api.ctx, upload({ returnExisting: true })));
		expect(e.message).toBe(
			`Item 2: 2 scans of template 7 could be the scan of "Invoice.pdf" (scan IDs 1001, 1000)`,
		);
		expect(e.description).toMatch(/content fingerprint in their names/);
	});

	test('a fingerprinted scan held by another item with other bytes is not this file', async () => {
		const api = fakeApi({ posts: [409] });
		const held = api.addScan({ filename: `Invoice.ds-${FP}.pdf` });
		const request = upload({ returnExisting: true });
		request.scope.claimedScanIds.add(held.id);
		const e = await error(sendUpload.call(api.ctx, request));
		expect(e.message).toMatch(/no scan of that template carries this file's fingerprint/);
	});

	test('same name without fingerprint: named, never output (one, then two)', async () => {
		const api = fakeApi({ posts: [409, 409] });
		api.addScan({ filename: 'Invoice.pdf' });
		api.addScan({ filename: 'Invoice.pdf', status: 'failed' });
		api.addScan({ filename: 'invoice.pdf' });
		const one = await error(sendUpload.call(api.ctx, upload({ returnExisting: true })));
		expect(one.message).toBe(
			'Item 2: the service says "Invoice.pdf" was already uploaded with template 7; 1 scan of that template has this name but no content fingerprint (scan IDs 1000), so none is output',
		);
		expect(one.description).toContain(`(".ds-${FP}")`);
		api.addScan({ filename: 'Invoice.pdf' });
		const two = await error(
			sendUpload.call(api.ctx, upload({ returnExisting: true, itemIndex: 3 })),
		);
		expect(two.message).toBe(
			'Item 3: the service says "Invoice.pdf" was already uploaded with template 7; 2 scans of that template have this name but no content fingerprint (scan IDs 1003, 1000), so none is output',
		);
	});

	test('nothing of the name or fingerprint: the error says so', async () => {
		const api = fakeApi({ posts: [409] });
		const e = await error(sendUpload.call(api.ctx, upload({ returnExisting: true })));
		expect(e.message).toBe(
			`Item 2: the service says "Invoice.pdf" was already uploaded with template 7, but no scan of that template carries this file's fingerprint (".ds-${FP}") or its name`,
		);
		expect(e.description).toMatch(/^The service said this file was already uploaded/);
	});

	test('a listing older than the 409 reads the newest pages again, once', async () => {
		const api = fakeApi({ posts: [409] });
		const request = upload({ returnExisting: true });
		const old = emptyListing(7, Date.now() - 60_000);
		request.scope.scanListings.set(7, Promise.resolve(old));
		api.addScan({ filename: `Invoice.ds-${FP}.pdf` });
		const scan = await sendUpload.call(api.ctx, request);
		expect(scan.id).toBe(1000);
		expect(api.sent.filter((s) => s.method === 'GET')).toHaveLength(1);
		expect(old.coveredUntil).toBeGreaterThan(Date.now() - 60_000);
		// Known already: no further read.
		const again = await sendUpload.call(fakeApi({ posts: [409] }).ctx, {
			...upload({ returnExisting: true }),
			scope: { ...request.scope, uploadedFiles: new Map(), claimedScanIds: new Set<number>() },
		});
		expect(again.id).toBe(1000);
	});
});

test('no secret in any error', async () => {
	const api = fakeApi({ posts: ['lost', 'lost', 'lost'] });
	const e = await error(sendUpload.call(api.ctx, upload()));
	expect(JSON.stringify({ m: e.message, d: e.description } as IDataObject)).not.toContain('secret');
});
