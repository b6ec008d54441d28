/**
 * Property-based tests (fast-check, fixed seed) of the shift-safe listing reader: a simulated
 * service lists records newest first, 25 a page, while records are added at random moments
 * between the reads, which arrive in random order. Whatever happens, every record that existed
 * when the listing started comes out exactly once, and nothing comes out twice.
 */
import fc from 'fast-check';

import { mapWithConcurrency } from '../../nodes/shared/concurrency';
import type { ListingPage } from '../../nodes/shared/transport/listingReader';
import { readListing } from '../../nodes/shared/transport/listingReader';
import { runs } from '../support/property-runs';

const PAGE = 25;
const SEED = 20261124;

interface Scenario {
	initial: number;
	/** Records added just before the n-th request is served. */
	additions: number[];
	/** Ticks each request waits before it is served (random arrival order). */
	delays: number[];
	envelope: 'data' | 'bare';
}

async function ticks(n: number) {
	for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

function service(scenario: Scenario) {
	let nextId = 1;
	const records: number[] = [];
	const add = (n: number) => {
		for (let i = 0; i < n; i++) records.unshift(nextId++);
	};
	add(scenario.initial);
	/** The records when the first request is served: the listing's start. */
	const existing: number[] = [];
	let served = 0;
	let requestNo = 0;
	const fetchPage = async (page: number): Promise<ListingPage> => {
		const delay = scenario.delays[requestNo++ % scenario.delays.length] ?? 0;
		await ticks(delay);
		add(scenario.additions[served++] ?? 0);
		if (served === 1) existing.push(...records);
		const items = records.slice((page - 1) * PAGE, page * PAGE).map((id) => ({ id }));
		if (scenario.envelope === 'bare') return { items };
		const lastPage = Math.max(1, Math.ceil(records.length / PAGE));
		return {
			items,
			meta: { current_page: page, last_page: lastPage, per_page: PAGE, total: records.length },
		};
	};
	return { fetchPage, existing };
}

const options = (fetchPage: (n: number) => Promise<ListingPage>, extra: object = {}) => ({
	fetchPage,
	pageSize: PAGE,
	maxPages: 400,
	atMaxPages: 'error' as const,
	concurrency: 8,
	lookahead: 8,
	tooManyPages: () => new Error('too many pages'),
	restless: () => new Error('restless'),
	inParallel: async <T>(count: number, width: number, task: (i: number) => Promise<T>) =>
		await mapWithConcurrency(count, width, task),
	...extra,
});

const scenarios = fc.record({
	initial: fc.integer({ min: 0, max: 260 }),
	additions: fc.array(fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 30 })), {
		maxLength: 20,
	}),
	delays: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 20 }),
	envelope: fc.constantFrom('data' as const, 'bare' as const),
});

test('every record that existed at the start comes out exactly once, whatever is added while reading', async () => {
	await fc.assert(
		fc.asyncProperty(scenarios, async (scenario) => {
			const { fetchPage, existing } = service(scenario);
			const result = await readListing(options(fetchPage));
			const ids = result.records.map((r) => Number(r.id));
			expect(new Set(ids).size).toBe(ids.length);
			const out = new Set(ids);
			expect(existing.filter((id) => !out.has(id))).toEqual([]);
			if (existing.length) expect(result.topId).toBe(existing[0]);
		}),
		runs(SEED, 300),
	);
});

test('the same with one page at a time (the poll trigger), stopping at a known record', async () => {
	await fc.assert(
		fc.asyncProperty(scenarios, fc.integer({ min: 0, max: 260 }), async (scenario, horizon) => {
			const { fetchPage, existing } = service(scenario);
			const result = await readListing(
				options(fetchPage, {
					sequential: true,
					stopAfter: (items: Array<{ id?: unknown }>) => items.some((r) => Number(r.id) <= horizon),
				}),
			);
			const ids = result.records.map((r) => Number(r.id));
			expect(new Set(ids).size).toBe(ids.length);
			const out = new Set(ids);
			// Every record above the horizon that existed at the start was read.
			expect(existing.filter((id) => id > horizon && !out.has(id))).toEqual([]);
		}),
		runs(SEED, 300),
	);
});

test('a server that ignores `page` ends the listing after page 1 (bare), without error', async () => {
	await fc.assert(
		fc.asyncProperty(fc.integer({ min: 25, max: 60 }), async (count) => {
			const items = Array.from({ length: count }, (_, i) => ({ id: count - i }));
			const result = await readListing(options(async () => ({ items: items.slice(0, PAGE) })));
			expect(result.records.map((r) => r.id)).toEqual(items.slice(0, PAGE).map((r) => r.id));
		}),
		runs(SEED, 20),
	);
});

test('a server that keeps answering with records already read fails clearly instead of stopping', async () => {
	let calls = 0;
	const fetchPage = async (page: number): Promise<ListingPage> => {
		calls++;
		// Page 1 changes on every read (so it never looks like "ignores page"), pages > 1 repeat old
		// records, never exactly as the page before (that would be a server repeating its last page).
		if (page === 1)
			return { items: Array.from({ length: PAGE }, (_, i) => ({ id: 1000 + calls * 100 - i })) };
		const old = Array.from({ length: PAGE }, (_, i) => ({ id: 1100 - i }));
		return { items: page % 2 === 0 ? old : old.reverse() };
	};
	await expect(readListing(options(fetchPage, { sequential: true }))).rejects.toThrow('restless');
});

test('odd pages: records without ids, nulls and non-objects are kept or dropped, never crash', async () => {
	await fc.assert(
		fc.asyncProperty(
			fc.array(
				fc.oneof(
					fc.constant(null),
					fc.constant(7),
					fc.record({ id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)) }),
				),
				{ maxLength: 30 },
			),
			async (page) => {
				const result = await readListing(
					options(async (n) => ({ items: (n === 1 ? page : []) as never })),
				);
				expect(result.records.every((r) => typeof r === 'object' && r !== null)).toBe(true);
			},
		),
		runs(SEED, 100),
	);
});
