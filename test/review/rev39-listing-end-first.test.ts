/**
 * Review of issue 39 (area 4): a status-filtered Return All reads the end page first and proves
 * the pages above it complete from `updated_at` and the HTTP `Date` header
 * (listingCoverage.ts `readEndFirst` / `provenFirst`). Pure reader over the listing model
 * (test/transport/listing-model.ts): events happen before the n-th request is served.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ListingPage, ListingReadOptions } from '../../nodes/shared/transport/listingReader';
import { readListing } from '../../nodes/shared/transport/listingReader';
import type { ServiceEvent, ServiceSpec } from '../transport/listing-model';
import { Service } from '../transport/listing-model';

const none: ServiceEvent = { create: [], reveal: [], advance: [] };
const COMPLETED = 2; // STATUSES[2 % 3]
/** The model's scans index (0-based) whose advance keeps a completed scan completed / makes it leave. */
const stays = (id: number) => (id - 1) % 3 === 0;
const leaves = (id: number) => (id - 1) % 3 !== 0;
/** Scans 60 and 56 are on page 2 when it is read before they leave. */
const LEAVE = [59, 55];

function options(
	fetchPage: (n: number) => Promise<ListingPage>,
	extra: Partial<ListingReadOptions> = {},
): ListingReadOptions {
	return {
		fetchPage,
		pageSize: 25,
		maxPages: 400,
		atMaxPages: 'error',
		concurrency: 8,
		lookahead: 8,
		changes: 'any',
		tooManyPages: () => new Error('too many pages'),
		restless: () => new Error('restless'),
		inParallel: async <T>(count: number, _w: number, task: (i: number) => Promise<T>) =>
			await Promise.all(Array.from({ length: count }, (_, i) => task(i))),
		...extra,
	};
}

async function readWith(
	service: Service,
	date?: (served: number) => string,
): Promise<{ ids?: number[]; always: Set<number>; pages: number[] }> {
	const watch = service.watch({ status: 'completed' });
	const pages: number[] = [];
	const fetchPage = async (page: number): Promise<ListingPage> => {
		pages.push(page);
		const { body } = await service.list({ status: 'completed', page });
		const { data, meta } = body as { data: IDataObject[]; meta: IDataObject };
		return { items: data, meta, headers: date ? { date: date(service.served) } : {} };
	};
	try {
		const result = await readListing(options(fetchPage));
		return { ids: result.records.map((r) => Number(r.id)), always: watch.always(), pages };
	} catch {
		// Failing with an error (never a silent loss) is an allowed outcome: no ids.
		return { always: watch.always(), pages };
	}
}

describe('rev39: end page first, proven from timestamps', () => {
	/*
	 * 90 completed scans (pages 1–3 full, page 4 short; meta says 4 pages). Reads: p1, p4 (the
	 * check), p2, p3 (finding the end), p1, then p2–p4. Scan 41 (last of page 2) is completed
	 * throughout. Before each read of the page it is on, a scan joins above it; before the next,
	 * one above it leaves: it is on no page read after the check.
	 */
	const X = 41;

	test('fixed: a scan visible late (old updated_at) counts as listed at the check: a scan completed throughout is missing', async () => {
		// The sandbox's `visibility: late` reading (hideScans / duringListing({reveal})): two
		// uploads of another client stored and completed, listed only later; meanwhile scan 88
		// is processed again and completes (a newer updated_at than theirs, on page 1).
		expect(stays(88) && leaves(60) && leaves(56)).toBe(true);
		const hidden = { status: COMPLETED, hidden: true, template: 1 };
		const events: ServiceEvent[] = [
			{ create: [hidden, hidden], reveal: [], advance: [87] }, // before p1
			none, // p4: the check
			{ ...none, reveal: [0] }, // p2: scan 91 visible above 41
			{ ...none, advance: [LEAVE[0]] }, // p3: scan 60 leaves
			none, // p1
			{ ...none, reveal: [0] }, // p2: scan 92 visible above 41
			{ ...none, advance: [LEAVE[1]] }, // p3: scan 56 leaves
		];
		const spec: ServiceSpec = {
			initial: { count: 90, mix: [COMPLETED] },
			events,
			delays: [0],
			envelope: 'data',
			pageEnd: 'empty',
		};
		const { ids, always, pages } = await readWith(new Service(spec));
		// The schedule above was written for these reads: p1, p4 (the check), p2, p3, p1.
		if (pages.slice(0, 5).join() !== '1,4,2,3,1') return;
		expect(always.has(X)).toBe(true);
		// What should happen: every scan completed throughout the read comes out.
		// What should happen: scan 41 comes out, or the read fails saying so.
		if (ids !== undefined) expect(ids).toContain(X);
	});

	test("fixed: a Date header a few seconds ahead of updated_at's clock (a front server's clock) makes new scans count as listed at the check: a scan completed throughout is missing", async () => {
		// New uploads join at the top (newest IDs, new updated_at) and finished ones leave;
		// the answers' Date comes from a clock 5 s ahead of the one stamping updated_at.
		const fresh = { status: COMPLETED, hidden: false, template: 1 };
		const events: ServiceEvent[] = [
			none, // p1
			none, // p4: the check
			{ ...none, create: [fresh] }, // p2: scan 91 joins above 41
			{ ...none, advance: [LEAVE[0]] }, // p3: scan 60 leaves
			none, // p1
			{ ...none, create: [fresh] }, // p2: scan 92 joins above 41
			{ ...none, advance: [LEAVE[1]] }, // p3: scan 56 leaves
		];
		const service = new Service({
			initial: { count: 90, mix: [COMPLETED] },
			events,
			delays: [0],
			envelope: 'data',
			pageEnd: 'empty',
		});
		// The model's clock counts one second per change; Date 5 s ahead of it.
		const clock = () => (service as unknown as { clock: number }).clock;
		const date = () => new Date(Date.UTC(2026, 0, 1) + (clock() + 5) * 1000).toUTCString();
		const { ids, always, pages } = await readWith(service, date);
		// The schedule above was written for these reads: p1, p4 (the check), p2, p3, p1.
		if (pages.slice(0, 5).join() !== '1,4,2,3,1') return;
		expect(always.has(X)).toBe(true);
		// What should happen: scan 41 comes out, or the read fails saying so.
		if (ids !== undefined) expect(ids).toContain(X);
	});

	test("fixed: one record's updated_at 100 s ahead of the others' clock (a server whose clock runs fast), no Date: new scans no longer count as listed at the check (at most 10 minutes of skew are trusted away)", async () => {
		const fresh = { status: COMPLETED, hidden: false, template: 1 };
		const events: ServiceEvent[] = [
			none, // p1: scan 80's updated_at is 100 s ahead
			none, // p4: the check
			{ ...none, create: [fresh] }, // p2: scan 91 joins above 41
			{ ...none, advance: [LEAVE[0]] }, // p3: scan 60 leaves
			none, // p1
			{ ...none, create: [fresh] }, // p2: scan 92 joins above 41
			{ ...none, advance: [LEAVE[1]] }, // p3: scan 56 leaves
		];
		const service = new Service({
			initial: { count: 90, mix: [COMPLETED] },
			events,
			delays: [0],
			envelope: 'data',
			pageEnd: 'empty',
		});
		// 100 s ahead of the newest (the model's clock counts minutes; 90 after the 90 scans).
		service.scans[79].updated = 90 + 100 / 60;
		const { ids, always, pages } = await readWith(service);
		// The schedule above was written for these reads: p1, p4 (the check), p2, p3, p1.
		if (pages.slice(0, 5).join() !== '1,4,2,3,1') return;
		expect(always.has(X)).toBe(true);
		// What should happen: scan 41 comes out, or the read fails saying so.
		if (ids !== undefined) expect(ids).toContain(X);
	});

	test('control: the same moves with a Date from the clock stamping updated_at: scan 41 comes out', async () => {
		const fresh = { status: COMPLETED, hidden: false, template: 1 };
		const events: ServiceEvent[] = [
			none,
			none,
			{ ...none, create: [fresh] },
			{ ...none, advance: [LEAVE[0]] },
			none,
			{ ...none, create: [fresh] },
			{ ...none, advance: [LEAVE[1]] },
		];
		const service = new Service({
			initial: { count: 90, mix: [COMPLETED] },
			events,
			delays: [0],
			envelope: 'data',
			pageEnd: 'empty',
		});
		const clock = () => (service as unknown as { clock: number }).clock;
		const date = () => new Date(Date.UTC(2026, 0, 1) + clock() * 1000).toUTCString();
		const { ids, always } = await readWith(service, date);
		expect(always.has(X)).toBe(true);
		expect(ids).toContain(X);
		expect(new Set(ids).size).toBe(ids?.length);
	});
});

describe('rev39: meta lying about the page size (pre-existing at c7c2c71)', () => {
	test.each(['grows', 'any'] as const)(
		"fixed (%s): meta says per_page 50 (and 4 pages, 100 records) while pages hold the spec's 25: the read ends after page 1, 75 records silently missing",
		async (changes) => {
			const fetchPage = async (page: number): Promise<ListingPage> => {
				const items: IDataObject[] = [];
				for (let id = 100 - (page - 1) * 25; id > Math.max(0, 100 - page * 25); id--)
					items.push({
						id,
						status: 'completed',
						updated_at: new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString(),
					});
				return { items, meta: { current_page: page, per_page: 50, last_page: 4, total: 100 } };
			};
			const result = await readListing(options(fetchPage, { changes }));
			// What should happen: all 100, or an error saying the pages contradict meta.
			expect(result.records).toHaveLength(100);
		},
	);
});
