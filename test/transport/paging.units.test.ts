/**
 * Unit tests of Get Many's paging (transport/paging.ts), importing the sources so that mutation
 * testing sees them. The one fake is n8n's request helper: it answers GET /scans?page=n.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ApiContext } from '../../nodes/shared/transport';
import { pageCountOf as countOf } from '../../nodes/shared/transport/listingPages';
import {
	MAX_PAGES,
	PAGE_CONCURRENCY,
	PAGE_LOOKAHEAD,
	readPages,
	restless,
} from '../../nodes/shared/transport/paging';

const PAGE = 25;
const pageCountOf = (page: Parameters<typeof countOf>[0]) => countOf(page, PAGE);
const node = {
	id: '1',
	name: 'Scans',
	type: 'test',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

interface Sent {
	url: string;
	qs: IDataObject;
	method: string;
}

/** A context whose request helper answers from `answer(page, qs)`, counting requests in flight. */
function context(answer: (page: number, qs: IDataObject) => unknown) {
	const sent: Sent[] = [];
	let inFlight = 0;
	let maxInFlight = 0;
	const ctx = {
		getNode: () => node,
		getCredentials: async () => ({ baseUrl: 'https://api.example.com/v1', apiKey: 'secret' }),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IDataObject) => {
				const qs = options.qs as IDataObject;
				sent.push({ url: String(options.url), qs, method: String(options.method) });
				inFlight++;
				maxInFlight = Math.max(maxInFlight, inFlight);
				await new Promise((resolve) => setImmediate(resolve));
				inFlight--;
				return { statusCode: 200, headers: {}, body: answer(Number(qs.page), qs) };
			},
		},
	} as unknown as ApiContext;
	return { ctx, sent, maxInFlight: () => maxInFlight };
}

const records = (count: number) => Array.from({ length: count }, (_, i) => ({ id: count - i }));
const bare = (all: IDataObject[]) => (page: number) => all.slice((page - 1) * PAGE, page * PAGE);
const enveloped = (all: IDataObject[]) => (page: number) => ({
	data: all.slice((page - 1) * PAGE, page * PAGE),
	meta: {
		current_page: page,
		last_page: Math.max(1, Math.ceil(all.length / PAGE)),
		total: all.length,
	},
});

test('the documented bounds', () => {
	expect(PAGE_CONCURRENCY).toBe(8);
	expect(PAGE_LOOKAHEAD).toBe(8);
	expect(MAX_PAGES).toBe(400);
});

test('pageCountOf reads meta with 25 records a page', () => {
	expect(pageCountOf({ items: [], meta: { total: 51 } })).toBe(3);
	expect(pageCountOf({ items: [], meta: { last_page: 7 } })).toBe(7);
	expect(pageCountOf({ items: [] })).toBeUndefined();
});

test('reads every page with the query and page number, in order, each record once', async () => {
	const all = records(60);
	const { ctx, sent } = context(enveloped(all));
	const out = await readPages.call(ctx, '/scans', { status: 'completed' });
	expect(out).toEqual(all);
	expect(sent.map((s) => s.qs)).toEqual([1, 2, 3].map((page) => ({ status: 'completed', page })));
	expect(sent.every((s) => s.url === '/scans' && s.method === 'GET')).toBe(true);
});

test('a bare listing, with a limit', async () => {
	const all = records(100);
	const { ctx, sent } = context(bare(all));
	expect(await readPages.call(ctx, '/scans', {}, { limit: 30 })).toEqual(all.slice(0, 30));
	expect(sent.map((s) => s.qs.page)).toEqual([1, 2]);
});

test('pages are read side by side: at most `concurrency` (default 8) at a time', async () => {
	const all = records(PAGE * 20);
	const first = context(enveloped(all));
	await readPages.call(first.ctx, '/scans', {});
	expect(first.maxInFlight()).toBe(PAGE_CONCURRENCY);
	const narrow = context(enveloped(all));
	await readPages.call(narrow.ctx, '/scans', {}, { concurrency: 2 });
	expect(narrow.maxInFlight()).toBe(2);
});

test('without a page count, the lookahead bounds the pages read ahead (default 8)', async () => {
	const all = records(PAGE * 30);
	const wide = context(bare(all));
	await readPages.call(wide.ctx, '/scans', {});
	expect(wide.maxInFlight()).toBe(PAGE_LOOKAHEAD);
	const narrow = context(bare(all));
	await readPages.call(narrow.ctx, '/scans', {}, { lookahead: 3 });
	expect(narrow.maxInFlight()).toBe(3);
});

test('a listing longer than maxPages fails with a clear error naming the item', async () => {
	const all = records(PAGE * 5);
	const { ctx } = context(enveloped(all));
	await expect(readPages.call(ctx, '/scans', {}, { maxPages: 2, itemIndex: 3 })).rejects.toThrow(
		'The listing has more than 2 pages (50 records); nothing was output (item 3)',
	);
	const error = await readPages
		.call(context(bare(all)).ctx, '/scans', {}, { maxPages: 2 })
		.catch((e: Error & { description?: string }) => e);
	expect((error as Error).message).toBe(
		'The listing has more than 2 pages (50 records); nothing was output',
	);
	expect((error as { description?: string }).description).toMatch(/^Return All stops at this cap/);
	const caller = await readPages
		.call(
			context(bare(all)).ctx,
			'/scans',
			{},
			{
				maxPages: 2,
				tooManyPages: (max) => new Error(`mine ${max}`),
			},
		)
		.catch((e: Error) => e);
	expect((caller as Error).message).toBe('mine 2');
	// The default bound is MAX_PAGES: 5 pages pass.
	expect(await readPages.call(context(bare(all)).ctx, '/scans', {})).toHaveLength(PAGE * 5);
});

test('a listing that keeps moving fails as restless, naming the path and item', async () => {
	let calls = 0;
	const { ctx } = context((page) => {
		calls++;
		if (page === 1) return records(1000 + calls * 100).slice(0, PAGE);
		// Old records, never exactly as the page before (that would be a last page repeated).
		const old = records(1100).slice(0, PAGE);
		return page % 2 === 0 ? old : old.reverse();
	});
	await expect(readPages.call(ctx, '/scans', {}, { itemIndex: 0, concurrency: 1 })).rejects.toThrow(
		'The listing of /scans kept moving while it was read; nothing was output (item 0)',
	);
	const error = restless(ctx, '/templates');
	expect(error.message).toBe(
		'The listing of /templates kept moving while it was read; nothing was output',
	);
	expect(error.description).toMatch(/^Several pages in a row held only records already read/);
});
