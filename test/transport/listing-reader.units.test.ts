/**
 * Unit tests of the shift-safe listing reader (transport/listingReader.ts), importing the
 * sources so that mutation testing sees them: the page-count and last-page rules, how many
 * pages are read side by side, limits and bounds, pages that repeat, and the repair of gaps
 * between pages read side by side. The one fake is the page request (and the order in which
 * pages read side by side are sent).
 */
import type { IDataObject } from 'n8n-workflow';

import type { ListingPage, ListingReadOptions } from '../../nodes/shared/transport/listingReader';
import {
	isEndPage,
	MAX_REPEATS,
	pageCountOf,
	readListing,
	recordId,
} from '../../nodes/shared/transport/listingReader';

const PAGE = 25;

/** A service listing records newest first; `before[n]` records are added before request n (1-based). */
function service(initial: number, envelope: 'data' | 'bare', before: Record<number, number> = {}) {
	let nextId = 1;
	const records: number[] = [];
	const add = (n: number) => {
		for (let i = 0; i < n; i++) records.unshift(nextId++);
	};
	add(initial);
	const pages: number[] = [];
	const fetchPage = async (page: number): Promise<ListingPage> => {
		pages.push(page);
		add(before[pages.length] ?? 0);
		const items = records.slice((page - 1) * PAGE, page * PAGE).map((id) => ({ id }));
		if (envelope === 'bare') return { items };
		return {
			items,
			meta: {
				current_page: page,
				last_page: Math.max(1, Math.ceil(records.length / PAGE)),
				per_page: PAGE,
				total: records.length,
			},
		};
	};
	return { fetchPage, pages };
}

const desc = (from: number, to: number) =>
	Array.from({ length: from - to + 1 }, (_, i) => from - i);

interface Calls {
	widths: number[];
	concurrency: number[];
}

/** Starts all tasks of a round at once (in `order`), so none is known to follow another. */
function options(
	fetchPage: (n: number) => Promise<ListingPage>,
	extra: Partial<ListingReadOptions> = {},
	order: 'forward' | 'reverse' = 'forward',
): ListingReadOptions & { calls: Calls } {
	const calls: Calls = { widths: [], concurrency: [] };
	return {
		fetchPage,
		pageSize: PAGE,
		maxPages: 400,
		atMaxPages: 'error',
		concurrency: 8,
		lookahead: 8,
		tooManyPages: () => new Error('too many pages'),
		restless: () => new Error('restless'),
		inParallel: async <T>(count: number, width: number, task: (i: number) => Promise<T>) => {
			calls.widths.push(count);
			calls.concurrency.push(width);
			const indexes = Array.from({ length: count }, (_, i) => i);
			if (order === 'reverse') indexes.reverse();
			const promises: Array<Promise<T>> = new Array(count);
			for (const i of indexes) promises[i] = task(i);
			return await Promise.all(promises);
		},
		calls,
		...extra,
	};
}

const ids = (records: IDataObject[]) => records.map((r) => r.id);

describe('recordId', () => {
	test.each([
		[{ id: 5 }, 5],
		[{ id: '12' }, 12],
		[{ id: 0 }, 0],
		[{ id: null }, undefined],
		[{ id: '' }, undefined],
		[{ id: 1.5 }, undefined],
		[{ id: 'x' }, undefined],
		[{ id: 2 ** 53 }, undefined],
		[{}, undefined],
	])('%j → %s', (record, id) => {
		expect(recordId(record as IDataObject)).toBe(id);
	});
});

describe('pageCountOf', () => {
	test.each([
		[undefined, undefined],
		[{}, undefined],
		[{ last_page: 3 }, 3],
		[{ total_pages: 4 }, 4],
		[{ pages: 5 }, 5],
		[{ last_page: 2, total_pages: 9, pages: 8 }, 2],
		[{ total_pages: 6, pages: 8 }, 6],
		[{ last_page: '2.7' }, 2],
		[{ last_page: 0, total: 51 }, 3],
		[{ last_page: -1, total: 50 }, 2],
		[{ total: 51 }, 3],
		[{ total: 50 }, 2],
		[{ total: 0 }, 1],
		[{ total: 1 }, 1],
		[{ total: 50, per_page: 10 }, 5],
		[{ total: 50, per_page: 0 }, 2],
		[{ total: null }, undefined],
		[{ total: '' }, undefined],
		[{ total: -1 }, undefined],
		[{ total: 'x' }, undefined],
	])('meta %j → %s', (meta, count) => {
		expect(pageCountOf({ items: [], meta: meta as IDataObject | undefined }, PAGE)).toBe(count);
	});

	test('per page falls back to the page size given', () => {
		expect(pageCountOf({ items: [], meta: { total: 50 } }, 10)).toBe(5);
	});
});

describe('isEndPage', () => {
	const full = Array.from({ length: PAGE }, (_, i) => ({ id: i + 1 }));
	test.each([
		[{ current_page: 2, last_page: 2 }],
		[{ last_page: 1 }],
		[{ current_page: 1, total: 25 }],
		[{ current_page: 2, total: 50, per_page: 25 }],
	])('a full page never ends the listing, whatever meta says: %j', (meta) => {
		expect(isEndPage({ items: full, meta }, PAGE)).toBe(false);
		expect(isEndPage({ items: full, links: { next: null } }, PAGE)).toBe(false);
	});

	test('empty or short pages end the listing; a full one does not', () => {
		expect(isEndPage({ items: [] }, PAGE)).toBe(true);
		expect(isEndPage({ items: full.slice(1) }, PAGE)).toBe(true);
		expect(isEndPage({ items: full }, PAGE)).toBe(false);
	});
});

describe('readListing: how pages are read', () => {
	test('with a page count: the other pages in one round at the given concurrency, no extra reads', async () => {
		const { fetchPage, pages } = service(75, 'data');
		const opts = options(fetchPage, { concurrency: 3 });
		const result = await readListing(opts);
		expect(ids(result.records)).toEqual(desc(75, 1));
		// A full last page is no end, whatever `meta` says: one more read (empty) ends it.
		expect(result).toMatchObject({ topId: 75, capped: false, requests: 4 });
		expect(pages).toEqual([1, 2, 3, 4]);
		expect(opts.calls).toEqual({ widths: [2, 1], concurrency: [3, 3] });
	});

	test('without a page count: 4 pages ahead, then twice as many up to the lookahead', async () => {
		const { fetchPage, pages } = service(PAGE * 20, 'bare');
		const opts = options(fetchPage, { lookahead: 6, sequential: false });
		const result = await readListing(opts);
		expect(result.records).toHaveLength(PAGE * 20);
		expect(opts.calls.widths.slice(0, 4)).toEqual([4, 6, 6, 6]);
		expect(pages.slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
		const eight = options(service(PAGE * 40, 'bare').fetchPage);
		await readListing(eight);
		expect(eight.calls.widths.slice(0, 3)).toEqual([4, 8, 8]);
	});

	test('a page count that turns out short: reading goes on past it, looking ahead', async () => {
		// Page 1 says 2 pages, but the listing has 5 full pages and then ends.
		const { fetchPage } = service(PAGE * 15, 'bare');
		const opts = options(async (n) => ({
			...(await fetchPage(n)),
			...(n === 1 ? { meta: { last_page: 2 } } : {}),
		}));
		const result = await readListing(opts);
		expect(ids(result.records)).toEqual(desc(PAGE * 15, 1));
		// Page 2 as planned, page 3 alone (the count may be right), then 8 ahead (4-11), 8 (12-19,
		// page 16 empty); no gap to repair.
		expect(opts.calls.widths).toEqual([1, 1, 8, 8]);
	});

	test('sequential: one page a round', async () => {
		const { fetchPage, pages } = service(80, 'bare');
		const opts = options(fetchPage, { sequential: true });
		const result = await readListing(opts);
		expect(result.records).toHaveLength(80);
		expect(pages).toEqual([1, 2, 3, 4]);
		expect(opts.calls.widths).toEqual([1, 1, 1]);
	});

	test("page 1's meta.per_page is the page size", async () => {
		const pages: number[] = [];
		const fetchPage = async (n: number): Promise<ListingPage> => {
			pages.push(n);
			const items = n <= 2 ? desc(30 - (n - 1) * 10, 21 - (n - 1) * 10).map((id) => ({ id })) : [];
			return { items, meta: n === 1 ? { per_page: 10 } : undefined };
		};
		const result = await readListing(options(fetchPage, { sequential: true }));
		expect(ids(result.records)).toEqual(desc(30, 11));
		expect(pages).toEqual([1, 2, 3]);
	});

	test('records without a usable id are kept; non-objects are dropped; no items array is no items', async () => {
		const result = await readListing(
			options(async (n) =>
				n === 1
					? ({
							items: [{ id: 2 }, { name: 'a' }, null, 7, { id: 2 }, { name: 'b' }, { id: 1 }],
						} as never)
					: ({ items: 'x' } as never),
			),
		);
		expect(result.records).toEqual([{ id: 2 }, { name: 'a' }, { name: 'b' }, { id: 1 }]);
		expect(result.topId).toBe(2);
		const none = await readListing(options(async () => ({ items: [{ name: 'a' }] })));
		expect(none.topId).toBeUndefined();
		expect(none.records).toEqual([{ name: 'a' }]);
	});
});

describe('readListing: limits and bounds', () => {
	test('a limit reads only the pages it needs and cuts the output', async () => {
		for (const [limit, pagesRead] of [
			[10, [1]],
			[25, [1]],
			[30, [1, 2]],
			// Pages 2 and 3 read side by side: the last page (3) once more to check for a gap.
			[60, [1, 2, 3, 3]],
		] as const) {
			const { fetchPage, pages } = service(PAGE * 10, 'bare');
			const result = await readListing(options(fetchPage, { limit }));
			expect(ids(result.records)).toEqual(desc(250, 251 - limit));
			expect(pages).toEqual(pagesRead);
		}
	});

	test('a limit counts records without an id too', async () => {
		const fetchPage = async (n: number): Promise<ListingPage> => ({
			items: Array.from({ length: PAGE }, (_, i) =>
				i < 5 ? { name: `${n}.${i}` } : { id: n * 100 - i },
			),
		});
		const result = await readListing(options(fetchPage, { limit: 40, sequential: true }));
		expect(result.records).toHaveLength(40);
		expect(result.requests).toBe(2);
	});

	test('a limit counts records without an id once each and records seen twice once', async () => {
		const idless = async (n: number): Promise<ListingPage> => ({
			items: Array.from({ length: PAGE }, (_, i) =>
				i < 5 ? { name: `${n}.${i}` } : { id: n * 100 - i },
			),
		});
		const pages: number[] = [];
		const fetch45 = async (n: number) => (pages.push(n), await idless(n));
		expect(
			(await readListing(options(fetch45, { limit: 45, sequential: true }))).records,
		).toHaveLength(45);
		expect(pages).toEqual([1, 2]);
		// Page 2 repeats 5 records of page 1 (5 added): 45 distinct after two pages.
		const shifted = service(100, 'bare', { 2: 5 });
		const result = await readListing(options(shifted.fetchPage, { limit: 46, sequential: true }));
		expect(ids(result.records)).toEqual(desc(100, 55));
		expect(shifted.pages).toEqual([1, 2, 3]);
	});

	test('stopAfter ends the listing after the first page for which it holds', async () => {
		const { fetchPage, pages } = service(PAGE * 6, 'bare');
		const result = await readListing(
			options(fetchPage, {
				sequential: true,
				stopAfter: (items) => items.some((r) => Number(r.id) <= 100),
			}),
		);
		expect(pages).toEqual([1, 2, 3]);
		expect(ids(result.records)).toEqual(desc(150, 76));
	});

	test('more pages than maxPages: an error, or a bound that says it was reached', async () => {
		const endless = async (n: number): Promise<ListingPage> => ({
			items: Array.from({ length: PAGE }, (_, i) => ({ id: 100_000 - n * PAGE - i })),
		});
		const counted = { n: 0 };
		const fetch = async (n: number) => {
			counted.n++;
			return await endless(n);
		};
		await expect(readListing(options(fetch, { maxPages: 6 }))).rejects.toThrow('too many pages');
		// Six pages, then page 7 alone: page 6 was full, and only a page past it can show the end.
		expect(counted.n).toBe(7);
		const stopped = await readListing(options(endless, { maxPages: 6, atMaxPages: 'stop' }));
		expect(stopped.capped).toBe(true);
		expect(stopped.records).toHaveLength(6 * PAGE);
		// Six pages, page 7 alone (it shows more), and page 1 once more (pages read side by side).
		expect(stopped.requests).toBe(8);
		const exact = await readListing(options(service(PAGE * 6, 'bare').fetchPage, { maxPages: 6 }));
		expect(exact.capped).toBe(false);
		expect(exact.records).toHaveLength(6 * PAGE);
	});

	test('a page count above maxPages: the cap is on pages read, not pages reported (`meta` may report any count)', async () => {
		const { fetchPage, pages } = service(PAGE * 10, 'data');
		await expect(readListing(options(fetchPage, { maxPages: 3 }))).rejects.toThrow(
			'too many pages',
		);
		expect(pages).toEqual([1, 2, 3, 4]);
		const reported = service(PAGE + 5, 'data');
		const small = await readListing(
			options(async (n) => ({ ...(await reported.fetchPage(n)), meta: { last_page: 20_000 } }), {
				maxPages: 3,
			}),
		);
		expect(small.records).toHaveLength(PAGE + 5);
		expect(reported.pages).toEqual([1, 2, 3]);
		const atCount = service(PAGE * 3, 'data');
		// Three full pages need a fourth read to end (a full page is never the end), past the cap.
		expect((await readListing(options(atCount.fetchPage, { maxPages: 3 }))).records).toHaveLength(
			75,
		);
		const limited = service(PAGE * 10, 'data');
		const result = await readListing(options(limited.fetchPage, { maxPages: 3, limit: 30 }));
		expect(result.records).toHaveLength(30);
		const bounded = service(PAGE * 10, 'data');
		const capped = await readListing(
			options(bounded.fetchPage, { maxPages: 3, atMaxPages: 'stop' }),
		);
		expect(bounded.pages).toEqual([1, 2, 3, 4]);
		expect(capped).toMatchObject({ capped: true, requests: 4 });
		expect(capped.records).toHaveLength(75);
		const short = await readListing(
			options(async () => ({ items: [{ id: 1 }], meta: { last_page: 10 } }), { maxPages: 3 }),
		);
		expect(short.records).toEqual([{ id: 1 }]);
	});

	test('the cap is on pages read, not pages reported: with stopAfter (the poll), page 1 reporting 20,000 pages reads on and stops where asked', async () => {
		const huge = service(PAGE * 10, 'data');
		const reported = async (page: number): Promise<ListingPage> => {
			const answer = await huge.fetchPage(page);
			return { ...answer, meta: { ...answer.meta, last_page: 20_000, total: 500_000 } };
		};
		const result = await readListing(
			options(reported, {
				maxPages: 10_000,
				sequential: true,
				stopAfter: (items) => items.some((record) => Number(record.id) <= 220),
			}),
		);
		expect(huge.pages).toEqual([1, 2]);
		expect(result.records).toHaveLength(50);
	});
});

describe('readListing: pages whose records were all seen', () => {
	test('MAX_REPEATS is 3', () => {
		expect(MAX_REPEATS).toBe(3);
	});

	test('a server naming page 1 for another page ends the listing without reading page 1 again, flagged', async () => {
		for (const key of ['current_page', 'page']) {
			const pages: number[] = [];
			const items = desc(60, 36).map((id) => ({ id }));
			const result = await readListing(
				options(
					async (n) => {
						pages.push(n);
						return { items, meta: { [key]: 1 } };
					},
					{ sequential: true },
				),
			);
			expect(ids(result.records)).toEqual(desc(60, 36));
			expect(pages).toEqual([1, 2]);
			expect(result.pageIgnored).toBe(true);
		}
	});

	test('a page naming itself with old records is a shift: reading goes on', async () => {
		// 25 records added before page 2 is read: page 2 holds page 1's records.
		const { fetchPage, pages } = service(60, 'data', { 2: 25 });
		const result = await readListing(options(fetchPage, { sequential: true }));
		expect(ids(result.records)).toEqual(desc(60, 1));
		expect(pages).toEqual([1, 2, 3, 4]);
	});

	test('a bare server that ignores page: page 1 is read once more, then the listing ends, flagged', async () => {
		const pages: number[] = [];
		const items = desc(60, 36).map((id) => ({ id }));
		const result = await readListing(
			options(async (n) => {
				pages.push(n);
				return { items };
			}),
		);
		expect(ids(result.records)).toEqual(desc(60, 36));
		expect(pages).toEqual([1, 2, 3, 4, 5, 1]);
		expect(result.pageIgnored).toBe(true);
	});

	test('a bare shift by 25: page 1 read again differs, so reading goes on', async () => {
		const { fetchPage, pages } = service(60, 'bare', { 2: 25 });
		const result = await readListing(options(fetchPage, { sequential: true }));
		expect(ids(result.records)).toEqual(desc(60, 1).concat());
		expect(pages.slice(0, 3)).toEqual([1, 2, 1]);
	});

	test('page 1 again with the same IDs but a record without id is not "the same"', async () => {
		const pages: number[] = [];
		const seen = desc(60, 36).map((id) => ({ id }));
		const result = readListing(
			options(
				async (n) => {
					pages.push(n);
					if (n === 1 && pages.length > 1) return { items: [...seen.slice(0, 24), { name: 'x' }] };
					// Never the page before again (that would be a server repeating its last page).
					return { items: n % 2 === 0 ? seen : [...seen].reverse() };
				},
				{ sequential: true },
			),
		);
		await expect(result).rejects.toThrow('restless');
	});

	test('page 1 read again must hold the same IDs in the same places, all of them', async () => {
		const first = desc(60, 36).map((id) => ({ id }));
		for (const again of [
			desc(60, 41).map((id) => ({ id })),
			[60, 99, ...desc(58, 36)].map((id) => ({ id })),
			[...desc(60, 37).map((id) => ({ id })), { name: 'x' }],
		]) {
			const pages: number[] = [];
			const result = await readListing(
				options(
					async (n) => {
						pages.push(n);
						if (n === 1) return { items: pages.length === 1 ? first : again };
						return { items: n === 2 ? first : [] };
					},
					{ sequential: true },
				),
			);
			// Not the same: page 2 was a shift, reading goes on to page 3.
			expect(pages).toEqual([1, 2, 1, 3]);
			expect(ids(result.records)).toEqual(desc(60, 36));
		}
	});

	test('a page with a record without id is never a repeat', async () => {
		const first = desc(60, 36).map((id) => ({ id }));
		const result = await readListing(
			options(
				async (n): Promise<ListingPage> => ({
					items: n === 1 ? first : n <= 6 ? [{ name: `new ${n}` }, ...first.slice(1)] : [],
				}),
				{ sequential: true },
			),
		);
		expect(result.records).toHaveLength(25 + 5);
	});

	test('meta.total null is no total: out-of-order pages are checked', async () => {
		const { fetchPage, pages } = service(75, 'bare');
		const result = await readListing(
			options(async (n) => ({ ...(await fetchPage(n)), meta: { total: null } }), {}, 'reverse'),
		);
		expect(ids(result.records)).toEqual(desc(75, 1));
		// The check reads the page that ended the listing (4, empty) once more.
		expect(pages).toEqual([1, 5, 4, 3, 2, 4]);
	});

	test('repeats in a row beyond MAX_REPEATS fail; a new record in between resets the count', async () => {
		let calls = 0;
		const repeating =
			(fresh: number[]) =>
			async (n: number): Promise<ListingPage> => {
				calls++;
				if (n === 1)
					return { items: desc(1000 + calls * 100, 976 + calls * 100).map((id) => ({ id })) };
				const items = desc(1100, 1076).map((id) => ({ id }));
				if (fresh.includes(n)) items[0] = { id: 5000 + n };
				// Never the page before again (that would be a server repeating its last page).
				return { items: n % 2 === 0 ? items : items.reverse() };
			};
		calls = 0;
		await expect(readListing(options(repeating([]), { sequential: true }))).rejects.toThrow(
			'restless',
		);
		// pages 2..5: three repeats pass, the fourth fails (1 + 4 pages + 4 re-reads of page 1).
		expect(calls).toBe(1 + 4 + 4);
		calls = 0;
		await expect(readListing(options(repeating([4]), { sequential: true }))).rejects.toThrow(
			'restless',
		);
		expect(calls).toBe(1 + 7 + 6);
	});
});

describe('readListing: gaps between pages read side by side', () => {
	test('a record added between two pages served out of order is read by a repair', async () => {
		// Pages 2-5 sent together, served 5, 4, 3, 2; one record added just before page 2.
		const { fetchPage, pages } = service(75, 'bare', { 5: 1 });
		const result = await readListing(options(fetchPage, {}, 'reverse'));
		expect(ids(result.records)).toEqual(desc(75, 1));
		expect(result.topId).toBe(75);
		// 1, 5 4 3 2, the last page (4) again: 76 records, 74 read, so pages 4 and 3 are read again.
		expect(pages).toEqual([1, 5, 4, 3, 2, 4, 4, 3]);
		expect(result.requests).toBe(8);
	});

	test('out of order but nothing added: the last page is read once more, no repair', async () => {
		const { fetchPage, pages } = service(75, 'bare');
		const result = await readListing(options(fetchPage, {}, 'reverse'));
		expect(ids(result.records)).toEqual(desc(75, 1));
		expect(pages).toEqual([1, 5, 4, 3, 2, 4]);
	});

	test('out of order with totals that agree: known to join, nothing read again', async () => {
		const { fetchPage, pages } = service(75, 'data');
		const opts = options(fetchPage, {}, 'reverse');
		opts.concurrency = 8;
		const result = await readListing(opts);
		expect(ids(result.records)).toEqual(desc(75, 1));
		expect(pages).toEqual([1, 3, 2, 4]);
	});

	test('a total that went down between neighbours is checked: the last page again shows every record was read', async () => {
		const base = service(75, 'data');
		const fetchPage = async (n: number): Promise<ListingPage> => {
			const request = base.pages.length + 1;
			const page = await base.fetchPage(n);
			if (n === 3 && request === 2) return { ...page, meta: { ...page.meta, total: 74 } };
			return page;
		};
		const result = await readListing(options(fetchPage, {}, 'reverse'));
		expect(ids(result.records)).toEqual(desc(75, 1));
		expect(base.pages).toEqual([1, 3, 2, 4, 4]);
	});

	test('pages read one after the other always join: no check read', async () => {
		const { fetchPage, pages } = service(75, 'bare', { 3: 1 });
		await readListing(options(fetchPage, { sequential: true }));
		expect(pages).toEqual([1, 2, 3, 4]);
	});

	test('a repair reads on until it joins the old page, and merges in page order', async () => {
		// 30 records added just before page 2 (served last): page 2 and 3 move by more than a page.
		const { fetchPage, pages } = service(100, 'bare', { 5: 30 });
		const result = await readListing(options(fetchPage, {}, 'reverse'));
		const out = ids(result.records) as number[];
		expect(new Set(out).size).toBe(out.length);
		for (const id of desc(100, 1)) expect(out).toContain(id);
		expect(out.filter((id) => id <= 100)).toEqual(desc(100, 1));
		expect(pages.slice(0, 6)).toEqual([1, 5, 4, 3, 2, 5]);
	});

	test('a repair that would pass maxPages fails as restless', async () => {
		let calls = 0;
		const fetchPage = async (n: number): Promise<ListingPage> => {
			calls++;
			// Page 1 first, then pages 2 and 3 out of order; every later read shows brand-new records.
			const base = calls <= 3 ? 0 : calls * 1000;
			if (calls === 1) return { items: desc(75, 51).map((id) => ({ id })) };
			if (calls <= 3)
				return {
					items: desc(75 - (n - 1) * 25, 51 - (n - 1) * 25)
						.slice(0, n === 3 ? 10 : 25)
						.map((id) => ({ id })),
				};
			return { items: desc(base + 25, base + 1).map((id) => ({ id: id + 100_000 })) };
		};
		await expect(readListing(options(fetchPage, { maxPages: 3 }, 'reverse'))).rejects.toThrow(
			'restless',
		);
	});
});

describe('readListing: a status filter read once when nothing changes', () => {
	const BASE = Date.UTC(2026, 0, 1);
	/** `count` records, the newest `id` `count`; `updated_at` a minute apart, or all the same. */
	function unchanging(
		count: number,
		envelope: 'data' | 'bare',
		stamps: 'apart' | 'same',
		date = true,
	) {
		const pages: number[] = [];
		const fetchPage = async (page: number): Promise<ListingPage> => {
			pages.push(page);
			const items = desc(count, 1)
				.slice((page - 1) * PAGE, page * PAGE)
				.map((id) => ({
					id,
					status: 'completed',
					updated_at: new Date(BASE + (stamps === 'apart' ? id * 60_000 : 0)).toISOString(),
				}));
			const headers = date ? { date: new Date(BASE + 10 ** 9).toUTCString() } : {};
			if (envelope === 'bare') return { items, headers };
			const meta = {
				last_page: Math.max(1, Math.ceil(count / PAGE)),
				per_page: PAGE,
				total: count,
			};
			return { items, meta, headers };
		};
		return { fetchPage, pages };
	}

	test.each([1, 2, 4, 40, 360])(
		'%i pages: every record, each page once plus at most 19 checks (data and bare)',
		async (size) => {
			for (const envelope of ['data', 'bare'] as const)
				for (const [stamps, date] of [
					['apart', false],
					['same', true],
				] as const) {
					const { fetchPage } = unchanging(size * PAGE, envelope, stamps, date);
					const result = await readListing(options(fetchPage, { changes: 'any' }));
					expect(ids(result.records)).toEqual(desc(size * PAGE, 1));
					expect(result.requests).toBeLessThanOrEqual(size + 20);
				}
		},
	);

	test('360 pages: 364 requests with `meta`, at most 380 without', async () => {
		const data = await readListing(
			options(unchanging(9000, 'data', 'apart').fetchPage, { changes: 'any' }),
		);
		expect(data.requests).toBe(364);
		const bare = await readListing(
			options(unchanging(9000, 'bare', 'apart').fetchPage, { changes: 'any' }),
		);
		expect(bare.requests).toBeLessThanOrEqual(380);
	});

	test('every record changed in the second of the newest, no Date: read twice; at most twice the cap in reads', async () => {
		const small = unchanging(40 * PAGE, 'data', 'same', false);
		const result = await readListing(options(small.fetchPage, { changes: 'any' }));
		expect(ids(result.records)).toEqual(desc(40 * PAGE, 1));
		expect(result.requests).toBeGreaterThan(2 * 40);
		// 380 pages read twice (and the end first, and page 1 again): within twice the cap.
		const large = unchanging(380 * PAGE, 'data', 'same', false);
		const all = await readListing(options(large.fetchPage, { changes: 'any' }));
		expect(all.records).toHaveLength(380 * PAGE);
		expect(all.requests).toBeLessThanOrEqual(800);
		// One read more than twice the cap is a listing that kept moving, never a silent stop.
		const capped = unchanging(6 * PAGE, 'data', 'same', false);
		await expect(
			readListing(options(capped.fetchPage, { changes: 'any', maxPages: 6 })),
		).rejects.toThrow('restless');
		expect(capped.pages.length).toBe(12);
	});
});
