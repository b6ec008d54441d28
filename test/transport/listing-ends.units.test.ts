/**
 * Unit tests of the page-end, count-check and coverage rules of the listing reader
 * (listingEnds.ts, listingRepair.ts `provesAll`, listingCoverage.ts `gapBelow` and `around`), importing the sources so
 * that mutation testing sees them. Pages are built by hand; the only fake is the re-read.
 */
import type { IDataObject } from 'n8n-workflow';

import { around, gapBelow } from '../../nodes/shared/transport/listingCoverage';

const proves = (reads: Read[], check: Read, size: number) =>
	around(reads, check).again >= (check.pageNumber - 1) * size;
import { classifyRepeat, contradictedEnd } from '../../nodes/shared/transport/listingEnds';
import type { Read } from '../../nodes/shared/transport/listingPages';
import { provesAll } from '../../nodes/shared/transport/listingRepair';

let clock = 0;
/** A read of page `pageNumber` holding these IDs (and optional meta). */
function page(pageNumber: number, ids: Array<number | null>, meta?: IDataObject): Read {
	return {
		pageNumber,
		items: ids.map((id) => (id === null ? { name: 'no id' } : { id })),
		meta,
		sent: ++clock,
		received: ++clock,
	};
}
const desc = (from: number, to: number) =>
	Array.from({ length: from - to + 1 }, (_, i) => from - i);

/** A re-read answering from `pages` by number, recording what was read. */
function rereads(pages: Record<number, Read>) {
	const asked: number[] = [];
	const read = async (n: number) => {
		asked.push(n);
		return pages[n] ?? page(n, []);
	};
	return { read, asked };
}

describe('classifyRepeat', () => {
	test('meta naming the page asked for: a shift, nothing read again', async () => {
		const { read, asked } = rereads({});
		const repeat = page(3, desc(50, 26), { current_page: 3 });
		expect(await classifyRepeat(repeat, page(2, desc(50, 26)), read)).toBe('shifted');
		expect(asked).toEqual([]);
	});

	test.each([
		[{ current_page: 2, last_page: 2 }, 'clamped'],
		[{ current_page: 2, last_page: 3 }, 'ignored'],
		[{ page: 2, total_pages: 2 }, 'clamped'],
		[{ current_page: 1, last_page: 4 }, 'ignored'],
		[{ current_page: 1 }, 'ignored'],
		[{ current_page: 2, pages: 3 }, 'ignored'],
	])('meta %j for page 3: %s, nothing read again', async (meta, kind) => {
		const { read, asked } = rereads({});
		expect(await classifyRepeat(page(3, desc(50, 26), meta), page(2, []), read)).toBe(kind);
		expect(asked).toEqual([]);
	});

	test('page 1 read again holds exactly this page: the server ignores page', async () => {
		const { read, asked } = rereads({ 1: page(1, desc(60, 36)) });
		expect(await classifyRepeat(page(2, desc(60, 36)), page(1, desc(60, 36)), read)).toBe(
			'ignored',
		);
		expect(asked).toEqual([1]);
	});

	test('the page before again, and it still holds the same: the last page repeated', async () => {
		const before = page(2, desc(50, 26));
		const { read, asked } = rereads({ 1: page(1, desc(75, 51)), 2: page(2, desc(50, 26)) });
		expect(await classifyRepeat(page(3, desc(50, 26)), before, read)).toBe('clamped');
		expect(asked).toEqual([1, 2]);
	});

	test('the page before again, but it now holds other records: a shift', async () => {
		const before = page(2, desc(50, 26));
		const { read } = rereads({ 1: page(1, desc(80, 56)), 2: page(2, desc(55, 31)) });
		expect(await classifyRepeat(page(3, desc(50, 26)), before, read)).toBe('shifted');
	});

	test('page 2 like page 1 but page 1 moved on: a shift (a server paging while records come)', async () => {
		const { read } = rereads({ 1: page(1, desc(85, 61)) });
		expect(await classifyRepeat(page(2, desc(60, 36)), page(1, desc(60, 36)), read)).toBe(
			'shifted',
		);
	});

	test('records without an ID are never "the same"', async () => {
		const ids = [...desc(50, 27), null];
		const { read } = rereads({ 1: page(1, ids), 2: page(2, ids) });
		expect(await classifyRepeat(page(3, ids), page(2, ids), read)).toBe('shifted');
	});
});

describe('contradictedEnd', () => {
	const first = (meta?: IDataObject) => page(1, desc(100, 76), meta);
	test.each([
		[{ last_page: 4 }, 3, 4],
		[{ last_page: 4 }, 4, 4],
		[{ last_page: 4 }, 5, undefined],
		[{ total: 100, per_page: 25 }, 4, 4],
		[{ total: 75 }, 4, undefined],
		[undefined, 2, undefined],
	])('page 1 meta %j, page %i past the end: %s', (meta, pageNumber, expected) => {
		expect(contradictedEnd(page(pageNumber, []), first(meta), 25)).toBe(expected);
	});

	test('a page with records, or page 1 itself, contradicts nothing', () => {
		expect(contradictedEnd(page(3, [5]), first({ last_page: 4 }), 25)).toBeUndefined();
		expect(contradictedEnd(page(1, []), page(1, [], { last_page: 1 }), 25)).toBeUndefined();
	});
});

describe('provesAll (the check read of the chain’s last page)', () => {
	const chain = [page(1, desc(75, 51)), page(2, desc(50, 26)), page(3, desc(25, 1))];

	test('the same records again: every record was read (down to need, or all after an end)', () => {
		expect(provesAll(chain, page(3, desc(25, 1)), 1, 25)).toBe(true);
		// A full page is not an end: below it, nothing is proven.
		expect(provesAll(chain, page(3, desc(25, 1)), -Infinity, 25)).toBe(false);
		expect(provesAll([...chain, page(4, [])], page(4, []), -Infinity, 25)).toBe(true);
		const short = [page(1, desc(60, 36)), page(2, desc(35, 11)), page(3, desc(10, 1))];
		expect(provesAll(short, page(3, desc(10, 1)), -Infinity, 25)).toBe(true);
	});

	test('the end page now holds one record more than was read: not proven', () => {
		// 76 records now (one joined anywhere), 75 read.
		expect(provesAll(chain, page(4, [1]), -Infinity, 25)).toBe(false);
	});

	test('a record seen only on the check read counts (it is output too)', () => {
		const missing = [page(1, desc(76, 52)), page(2, desc(51, 27)), page(3, [25, 24])];
		// 26 missing in the chain; the check read of page 3 shows it: 76 of 76.
		expect(provesAll(missing, page(4, [1]), -Infinity, 25)).toBe(false);
		expect(
			provesAll(
				[page(1, desc(76, 52)), page(2, desc(51, 27)), page(3, desc(25, 2))],
				page(4, [1]),
				-Infinity,
				25,
			),
		).toBe(false);
		expect(
			provesAll(
				[page(1, desc(76, 52)), page(2, desc(50, 27)), page(3, desc(25, 2))],
				page(3, [...desc(26, 2)]),
				-Infinity,
				25,
			),
		).toBe(false);
	});

	test('an empty check: proven when as many records were read as the pages before hold', () => {
		const full = [page(1, desc(50, 26)), page(2, desc(25, 1)), page(3, [])];
		expect(provesAll(full, page(3, []), -Infinity, 25)).toBe(true);
		expect(provesAll(full.slice(0, 1).concat(page(3, [])), page(3, []), -Infinity, 25)).toBe(false);
	});

	test('a full check that is not an end page proves down to its lowest ID only', () => {
		const two = [page(1, desc(50, 26)), page(2, desc(25, 1))];
		expect(provesAll(two, page(2, desc(25, 1)), 1, 25)).toBe(true);
		expect(provesAll(two, page(2, desc(25, 1)), 0, 25)).toBe(false);
	});

	test('records without an ID prove nothing; a page longer than the page size is not trusted', () => {
		expect(provesAll([page(1, [3, null, 1])], page(1, [3, null, 1]), -Infinity, 25)).toBe(false);
		// 30 records a page where 25 were expected: positions are not what the count assumes.
		const long = [page(1, desc(60, 31)), page(2, desc(30, 1))];
		expect(provesAll(long, page(2, desc(30, 1)), -Infinity, 25)).toBe(false);
	});
});

describe('gapBelow and proves (a filtered listing whose records may join and leave)', () => {
	const none = new Set<Read>();
	const gap = (chain: Read[], need = -Infinity, end?: Read, proven = none) =>
		gapBelow(chain, proven, end, need, 25);

	test('neighbouring IDs across every boundary and an end page: nothing open', () => {
		expect(gap([page(1, desc(60, 36)), page(2, desc(35, 11)), page(3, desc(10, 1))])).toBe(
			undefined,
		);
	});

	test('a gap between two pages: the page below it is the check', () => {
		expect(gap([page(1, desc(60, 36)), page(2, desc(34, 10)), page(3, desc(9, 1))])).toBe(2);
	});

	test('several gaps: the page below the lowest (its check covers every gap above)', () => {
		const chain = [page(1, desc(90, 66)), page(2, desc(60, 36)), page(3, desc(30, 21))];
		expect(gap(chain)).toBe(3);
	});

	test('an empty end page leaves the bottom open: the empty page is the check; a clamped end closes it', () => {
		const chain = [page(1, desc(50, 26)), page(2, desc(25, 1)), page(3, [])];
		expect(gap(chain)).toBe(3);
		expect(gap(chain.slice(0, 2), -Infinity, chain[1])).toBeUndefined();
	});

	test('with a limit, gaps below what is needed do not matter, nor the bottom', () => {
		const chain = [page(1, desc(60, 36)), page(2, desc(30, 6))];
		expect(gap(chain, 36)).toBeUndefined();
		expect(gap(chain, 10)).toBe(2);
	});

	test('an empty listing or a short page 1 covers everything; a full page 1 without IDs nothing', () => {
		expect(gap([page(1, [])])).toBeUndefined();
		expect(gap([page(1, [null, null])])).toBeUndefined();
		expect(gap([page(1, Array<null>(25).fill(null)), page(2, [])])).toBe(1);
	});

	test('overlapping pages (records moved down between reads) leave no gap', () => {
		expect(gap([page(1, desc(60, 36)), page(2, desc(38, 14)), page(3, desc(15, 1))])).toBe(
			undefined,
		);
	});

	test('a proven check covers every ID above it', () => {
		const chain = [page(1, desc(90, 66)), page(2, desc(60, 36)), page(3, desc(30, 21))];
		const check = page(3, desc(30, 21));
		expect(gap([...chain, check], -Infinity, undefined, new Set([check]))).toBeUndefined();
	});

	test('proves: as many records above the check, read before it and again after it, unchanged', () => {
		const before = [page(1, desc(60, 36)), page(2, desc(34, 10))];
		const check = page(3, []);
		const again = [page(1, desc(60, 36)), page(2, desc(34, 10))];
		expect(proves([...before, check, ...again], check, 25)).toBe(true);
		// One record above left after the check was read: 49 of 50 are known listed at its time.
		const lost = [page(1, desc(60, 36)), page(2, desc(34, 11))];
		expect(proves([...before, check, ...lost], check, 25)).toBe(false);
		// A record read only after the check may have joined after it.
		expect(proves([before[0], check, ...again], check, 25)).toBe(false);
		// A record processed again between the reads (a new updated_at) proves nothing.
		const changed = page(1, desc(60, 36));
		changed.items[3] = { id: 57, updated_at: 'later' };
		expect(proves([...before, check, changed, again[1]], check, 25)).toBe(false);
	});
});
