/**
 * Unit tests of the template listing behind "Return Existing Scan" and the recovery after a
 * lost answer (upload/scanListing.ts, candidates.ts), importing the sources so that
 * mutation testing sees them. The one fake is n8n's request helper (./upload-fake.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import { findCandidates, isCandidate } from '../../nodes/DocumentScanning/upload/candidates';
import type { ScanListings } from '../../nodes/DocumentScanning/upload/scanListing';
import {
	CLOCK_ALLOWANCE_MS,
	coverUntil,
	emptyListing,
	indexScans,
	LISTING_MAX_PAGES,
	nameKey,
	nameKeys,
	readSince,
	serverClockOffset,
	sharedListing,
	tooManyPagesError,
} from '../../nodes/DocumentScanning/upload/scanListing';
import { fakeApi } from './upload-fake';

const request = { templateId: 7, itemIndex: 1, fileName: 'a.pdf' };
const FP = 'abcdef012345';

test('the documented bounds', () => {
	expect(LISTING_MAX_PAGES).toBe(4000);
	expect(CLOCK_ALLOWANCE_MS).toBe(2000);
});

describe('isCandidate', () => {
	const search = { templateId: 7, claimed: new Set([5]) };
	test.each([
		[{ id: 1, status: 'processing', template_id: 7 }, true],
		[{ id: 1, status: 'completed' }, true],
		[{ id: 1, status: 'failed', template_id: 7 }, false],
		[{ id: 1, template_id: 8 }, false],
		[{ id: 1, template_id: '7' }, true],
		[{ id: 5, template_id: 7 }, false],
		[{ id: '5', template_id: 7 }, false],
	])('%j → %s', (scan, candidate) => {
		expect(isCandidate(scan as IDataObject, search)).toBe(candidate);
	});
});

describe('serverClockOffset', () => {
	test('from the Date header (either case), else 0', () => {
		const ahead = new Date(Date.now() + 3_600_000).toUTCString();
		expect(serverClockOffset({ date: ahead })).toBeGreaterThan(3_598_000);
		expect(serverClockOffset({ date: ahead })).toBeLessThan(3_601_000);
		expect(serverClockOffset({ Date: ahead })).toBeGreaterThan(3_598_000);
		expect(serverClockOffset({ date: 'nonsense' })).toBe(0);
		expect(serverClockOffset({ date: 5 })).toBe(0);
		expect(serverClockOffset(undefined)).toBe(0);
	});
});

describe('nameKeys / nameKey / indexScans', () => {
	test('keys: the stored name and the user part, normalized; Latin-1 repairs too', () => {
		expect(nameKeys(`dir/a.ds-${FP}.pdf`)).toEqual([`a.ds-${FP}.pdf`, 'a.pdf']);
		expect(nameKeys('a.pdf')).toEqual(['a.pdf']);
		expect(nameKeys('Ã©t.pdf')).toEqual(['Ã©t.pdf', 'ét.pdf']);
		expect(nameKeys('')).toEqual([]);
		expect(nameKeys(5)).toEqual([]);
		expect(nameKeys(`.ds-${FP}`)).toEqual([`.ds-${FP}`]);
		expect(nameKey(' x/a.pdf ')).toBe('a.pdf');
	});

	test('indexes by fingerprint and name, each ID once, newest first', () => {
		const listing = emptyListing(7, 123);
		expect(listing).toEqual({
			templateId: 7,
			coveredUntil: 123,
			byFingerprint: new Map(),
			byName: new Map(),
			ids: new Set(),
		});
		indexScans(listing, [
			{ id: 3, filename: `a.ds-${FP}.pdf` },
			{ id: 9, filename: 'a.pdf' },
			{ id: 3, filename: 'b.pdf' },
		]);
		indexScans(listing, [
			{ id: 12, filename: `a.ds-${FP}.pdf` },
			{ id: 9, filename: 'a.pdf' },
		]);
		expect(listing.byFingerprint.get(FP)?.map((s) => s.id)).toEqual([12, 3]);
		const named = listing.byName.get('a.pdf') ?? [];
		expect(named.map((s) => s.id)).toEqual([12, 9, 3]);
		// Scans without an ID are each indexed (never taken for one another).
		const idless = emptyListing(7, 0);
		indexScans(idless, [
			{ filename: 'a.pdf' },
			{ id: null, filename: 'a.pdf' },
			{ filename: 'a.pdf' },
		]);
		expect(idless.byName.get('a.pdf')).toHaveLength(3);
		expect(idless.ids.size).toBe(0);
		expect(listing.byName.get('b.pdf')).toBeUndefined();
		expect([...listing.ids]).toEqual(['3', '9', '12']);
	});
});

describe('readSince', () => {
	test('scans created after the moment (server clock, 2 s allowance), newest first', async () => {
		const api = fakeApi({ clockOffset: 3_600_000 });
		const since = Date.now();
		const at = (ms: number) => api.iso(since + 3_600_000 + ms);
		// The Date header has whole seconds: the estimate may be up to 1 s early.
		api.addScan({ filename: 'old.pdf', created_at: at(-4_000) });
		api.addScan({ filename: 'edge.pdf', created_at: at(-1_500) });
		api.addScan({ filename: 'odd.pdf', created_at: 'not a date' });
		api.addScan({ filename: 'new.pdf', created_at: at(5_000) });
		const found = await readSince.call(api.ctx, request, since);
		expect(found.map((s) => s.filename)).toEqual(['new.pdf', 'odd.pdf', 'edge.pdf']);
		expect(api.sent.map((s) => s.qs)).toEqual([{ template_id: 7, page: 1 }]);
	});

	test('reads page after page until the scans are older', async () => {
		const api = fakeApi();
		const since = Date.now() - 10_000;
		api.addScan({ filename: 'old.pdf', created_at: api.iso(since - 60_000) });
		for (let i = 0; i < 30; i++) api.addScan({ filename: `${i}.pdf` });
		const found = await readSince.call(api.ctx, request, since);
		expect(found).toHaveLength(30);
		expect(api.sent.map((s) => s.qs.page)).toEqual([1, 2]);
	});

	test('ends on a short page, a last page, or a page of nothing new', async () => {
		const api = fakeApi({ envelope: 'bare' });
		for (let i = 0; i < 25; i++) api.addScan({ filename: `${i}.pdf` });
		// Bare, 25 on page 1, page 2 empty.
		expect(await readSince.call(api.ctx, request, 0)).toHaveLength(25);
		expect(api.sent.map((s) => s.qs.page)).toEqual([1, 2]);
		const meta = fakeApi();
		for (let i = 0; i < 25; i++) meta.addScan({ filename: `${i}.pdf` });
		await readSince.call(meta.ctx, request, 0);
		expect(meta.sent.map((s) => s.qs.page)).toEqual([1]);
		// A server that ignores `page`: page 2 brings nothing new.
		const same = fakeApi();
		const scans = Array.from({ length: 25 }, (_, i) => ({
			id: 100 - i,
			created_at: same.iso(Date.now()),
		}));
		(
			same.ctx.helpers as unknown as { httpRequestWithAuthentication: unknown }
		).httpRequestWithAuthentication = async () => ({ statusCode: 200, headers: {}, body: scans });
		expect(await readSince.call(same.ctx, request, 0)).toHaveLength(25);
		// meta.per_page: 10 a page.
		const ten = fakeApi();
		let calls = 0;
		(
			ten.ctx.helpers as unknown as { httpRequestWithAuthentication: unknown }
		).httpRequestWithAuthentication = async (_t: string, req: IDataObject) => {
			calls++;
			const page = Number((req.qs as IDataObject).page);
			const data = page <= 2 ? Array.from({ length: 10 }, (_, i) => ({ id: page * 100 + i })) : [];
			return { statusCode: 200, headers: {}, body: { data, meta: { per_page: 10 } } };
		};
		expect(await readSince.call(ten.ctx, request, 0)).toHaveLength(20);
		expect(calls).toBe(3);
	});

	test('a listing that never ends stops at LISTING_MAX_PAGES with a clear error', async () => {
		const api = fakeApi();
		let page = 0;
		(
			api.ctx.helpers as unknown as { httpRequestWithAuthentication: unknown }
		).httpRequestWithAuthentication = async (_t: string, req: IDataObject) => {
			page = Number((req.qs as IDataObject).page);
			return { statusCode: 200, headers: {}, body: [{ id: page }] };
		};
		const ctx = api.ctx;
		// One record a page and per_page 1: every page is full.
		(
			ctx.helpers as unknown as { httpRequestWithAuthentication: unknown }
		).httpRequestWithAuthentication = async (_t: string, req: IDataObject) => {
			page = Number((req.qs as IDataObject).page);
			return {
				statusCode: 200,
				headers: {},
				body: { data: [{ id: page }], meta: { per_page: 1 } },
			};
		};
		await expect(readSince.call(ctx, request, 0)).rejects.toThrow(
			'Item 1: template 7 has more than 4000 pages of scans (100000); the node stopped looking for the scan of "a.pdf"',
		);
		expect(page).toBe(LISTING_MAX_PAGES);
		const error = tooManyPagesError(ctx, request);
		expect(error.description).toMatch(
			/^The service said this file was already uploaded with template 7/,
		);
	});
});

describe('findCandidates', () => {
	test('same name (as stored), not failed, not claimed, after the upload was sent', async () => {
		const api = fakeApi();
		const sentAt = Date.now();
		api.addScan({ filename: 'a.pdf', created_at: api.iso(sentAt - 60_000) });
		const keep = api.addScan({ filename: 'folder/a.pdf' });
		api.addScan({ filename: 'b.pdf' });
		api.addScan({ filename: 'a.pdf', status: 'failed' });
		const claimed = api.addScan({ filename: 'a.pdf' });
		const found = await findCandidates.call(api.ctx, {
			...request,
			sentAt,
			claimed: new Set([claimed.id]),
		});
		expect(found).toEqual([keep]);
	});
});

describe('sharedListing / coverUntil', () => {
	test('read once per template; a failed read is not kept', async () => {
		const api = fakeApi();
		api.addScan({ filename: `a.ds-${FP}.pdf` });
		const listings: ScanListings = new Map();
		const first = await sharedListing.call(api.ctx, listings, request);
		const second = await sharedListing.call(api.ctx, listings, request);
		expect(second).toBe(first);
		expect(first.byFingerprint.get(FP)?.map((s) => s.id)).toEqual([1000]);
		expect(api.sent).toHaveLength(1);
		expect(api.sent[0].qs).toEqual({ template_id: 7, page: 1 });
		const failing = fakeApi({ listingFails: true });
		const other: ScanListings = new Map();
		await expect(sharedListing.call(failing.ctx, other, request)).rejects.toThrow();
		await new Promise((resolve) => setImmediate(resolve));
		expect(other.size).toBe(0);
	});

	test('a listing that never ends fails with the item and file named', async () => {
		const api = fakeApi();
		(
			api.ctx.helpers as unknown as { httpRequestWithAuthentication: unknown }
		).httpRequestWithAuthentication = async () => ({
			statusCode: 200,
			headers: {},
			body: {
				data: Array.from({ length: 25 }, (_, i) => ({ id: 100 - i })),
				meta: { last_page: 5000 },
			},
		});
		await expect(sharedListing.call(api.ctx, new Map(), request)).rejects.toThrow(
			'Item 1: template 7 has more than 4000 pages of scans',
		);
	});

	test('coverUntil reads the newest pages only when the listing is older, once for all waiting', async () => {
		const api = fakeApi();
		const listing = emptyListing(7, Date.now() - 60_000);
		api.addScan({ filename: 'new.pdf' });
		await coverUntil.call(api.ctx, listing, listing.coveredUntil - 1, request);
		expect(api.sent).toHaveLength(0);
		const needed = Date.now();
		await Promise.all([
			coverUntil.call(api.ctx, listing, needed, request),
			coverUntil.call(api.ctx, listing, needed, request),
		]);
		expect(api.sent).toHaveLength(1);
		expect(listing.coveredUntil).toBeGreaterThanOrEqual(needed);
		expect(listing.refreshing).toBeUndefined();
		expect(listing.byName.get('new.pdf')?.map((s) => s.id)).toEqual([1000]);
	});

	test('a refresh that started too early is waited out, then another one runs', async () => {
		const api = fakeApi();
		const listing = emptyListing(7, Date.now() - 60_000);
		const early = coverUntil.call(api.ctx, listing, Date.now(), request);
		const later = Date.now() + 5;
		while (Date.now() < later) {
			/* the next moment on the local clock */
		}
		await Promise.all([early, coverUntil.call(api.ctx, listing, later, request)]);
		expect(api.sent).toHaveLength(2);
		expect(listing.coveredUntil).toBeGreaterThanOrEqual(later);
	});

	test('a failed refresh fails the callers and leaves the listing as it was', async () => {
		const api = fakeApi({ listingFails: true });
		const listing = emptyListing(7, 5);
		await expect(coverUntil.call(api.ctx, listing, Date.now(), request)).rejects.toThrow();
		expect(listing.coveredUntil).toBe(5);
		expect(listing.refreshing).toBeUndefined();
	});
});
