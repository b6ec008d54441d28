import type { IDataObject } from 'n8n-workflow';

import { closeGaps, provenFirst, readEndFirst } from './listingCoverage';
import { classifyRepeat, contradictedEnd } from './listingEnds';
import type { InParallel, ListingPage, Read } from './listingPages';
import { idsOf, isEndPage, pageCountOf, pageSizeOf, recordId } from './listingPages';
import { joins, merge, provesAll, repairGaps } from './listingRepair';

/**
 * Reads a listing that is paged by position (`page` = 1, 2, …, ordered by ID, newest first)
 * while other clients change it. Pure: the requests come from `fetchPage`, so the rules below
 * are tested on their own over shifting, odd and hostile input. docs/design.md ("Listings read exactly once") gives
 * the arguments in full.
 *
 * Guarantee: every record listed from the start to the end of the read comes out exactly once;
 * a record that joined or left the listing during the read comes out at most once. How:
 *
 * - **The end.** The listing ends only on a page that says so itself when it is read (empty
 *   or short; never a full page, whatever its `meta` / `links` say), so a record pushed past
 *   the planned last page is read.
 *   A page past the end may also come as 404 / 422 (read as empty), as the last page again, or
 *   the server may ignore `page` altogether: listingEnds.ts tells them apart, and `pageIgnored`
 *   says when nothing beyond page 1 could be read.
 * - **A listing that only gains records** (`changes: 'grows'`, the default: no filter or a
 *   template; records join at the top or, visible late, in the middle):
 *   pages read one after the other miss nothing; pages read side by side are checked and their
 *   gaps repaired (listingRepair.ts).
 * - **A listing whose records may also leave** (`changes: 'any'`: every status filter): the
 *   gaps between pages are closed by checking the page below them and reading the pages above
 *   it again (listingCoverage.ts).
 * - **A listing that moves faster than it is read**: more than `MAX_REPEATS` pages in a row of
 *   records all read before, or as many failed checks, fail with `restless()`, never a silent
 *   stop.
 *
 * Records are output once each (by `id`), in page order. Records without a usable `id` are
 * kept as they come.
 */

export type { ListingPage } from './listingPages';
export { isEndPage, pageCountOf, pageSizeOf, recordId } from './listingPages';

export interface ListingReadOptions {
	fetchPage: (pageNumber: number) => Promise<ListingPage>;
	/** Records per page unless page 1's `meta.per_page` says otherwise. */
	pageSize: number;
	/** Stop once this many records are read. */
	limit?: number;
	/** Pages read at most (page 1 included). */
	maxPages: number;
	/** What reaching `maxPages` means: an error (a listing that never ends) or a bound. */
	atMaxPages: 'error' | 'stop';
	/** Pages read at the same time when page 1's `meta` tells how many there are. */
	concurrency: number;
	/** Pages read ahead at the same time otherwise (4 at first, doubling up to this). */
	lookahead: number;
	/** One page at a time, each after the one before came back (a poll that usually needs one page). */
	sequential?: boolean;
	/** Stop after the first page for which this holds (e.g. it reached a known record). */
	stopAfter?: (items: IDataObject[]) => boolean;
	/** How the listing may change while it is read (see above); default 'grows'. */
	changes?: 'grows' | 'any';
	/** Whether another listing shows that the server pages (listingEnds.ts: clamped or ignored). */
	pages?: () => Promise<boolean>;
	tooManyPages: () => Error;
	restless: () => Error;
	/**
	 * A listing that only gains records answered page `pageNumber` with no records (or with HTTP
	 * `status` 404 / 422) although page 1 said it has `pages` pages. Default: a plain Error.
	 */
	contradicted?: (detail: { pageNumber: number; status?: number; pages: number }) => Error;
	/** Runs `task(0..count-1)` at most `width` at a time; results in index order. */
	inParallel: InParallel;
}

export interface ListingResult {
	records: IDataObject[];
	/** The highest record ID on page 1 as first read. */
	topId: number | undefined;
	/** True when reading stopped at `maxPages` with `atMaxPages: 'stop'`. */
	capped: boolean;
	/** True when the listing was read to its end (not stopped by a limit, `stopAfter` or a bound). */
	reachedEnd: boolean;
	/**
	 * True when page 2 held exactly page 1's records and page 1 read again still did (or `meta`
	 * named page 1 for another page): the server ignores `page` (or has exactly one full page and
	 * repeats it past the end). Only page 1's records were read.
	 */
	pageIgnored: boolean;
	/** Requests sent. */
	requests: number;
}

/** Pages in a row whose records were all seen before reading fails (see `restless`). */
export const MAX_REPEATS = 3;

type Ending = 'end' | 'clamped' | 'ignored' | 'stop' | 'limit' | 'capped';

/** The lowest ID among the records; -Infinity when one has no usable ID (nothing can be assumed). */
function lowestId(records: IDataObject[]): number {
	const ids = records.map(recordId);
	return ids.some((id) => id === undefined) || ids.length === 0
		? -Infinity
		: Math.min(...(ids as number[]));
}

export async function readListing(options: ListingReadOptions): Promise<ListingResult> {
	let clock = 0;
	let requests = 0;
	const grows = options.changes !== 'any';
	const read = async (pageNumber: number): Promise<Read> => {
		// Under a status filter every page read counts, checks included: twice the cap at most.
		if (!grows && requests >= 2 * options.maxPages) throw options.restless();
		const sent = ++clock;
		requests++;
		const page = await options.fetchPage(pageNumber);
		const items = (Array.isArray(page.items) ? page.items : []).filter(
			(item) => typeof item === 'object' && item !== null,
		);
		return { ...page, items, pageNumber, sent, received: ++clock };
	};

	let first = await read(1);
	// A `meta.per_page` above the spec's 25 counts only when page 1 holds more than 25.
	const most = Math.max(first.items.length, options.pageSize);
	const pageSize = Math.min(pageSizeOf(first, options.pageSize), most);
	// The cap is on pages read, not on pages `meta` reports: it may report any count.
	const count = pageCountOf(first, pageSize);
	// Up to 3 pages, checking them again costs less than finding the end first.
	const whole = options.limit === undefined && !options.stopAfter && !options.sequential;
	const endFirst =
		grows || !whole || isEndPage(first, pageSize) || (count !== undefined && count <= 3)
			? undefined
			: await readEndFirst(first, count, read, pageSize, options.maxPages);
	const early = endFirst?.check;
	const trusted = endFirst?.trusted ? early : undefined;
	if (early) first = await read(1);
	const firstIds = idsOf(first);
	const topId = firstIds.length ? Math.max(...firstIds) : undefined;
	const chain: Read[] = [first];
	const seen = new Set<number>(firstIds);
	let unique = first.items.length - firstIds.length + seen.size;
	const enough = () => options.limit !== undefined && unique >= options.limit;
	const endingOf = (page: Read): Ending | undefined => {
		if (isEndPage(page, pageSize)) return 'end';
		if (enough()) return 'limit';
		return options.stopAfter?.(page.items) === true ? 'stop' : undefined;
	};

	let ending = endingOf(first);
	let next = 2;
	let ahead = 4;
	let repeats = 0;
	const cap = (): Ending => {
		if (options.atMaxPages === 'error') throw options.tooManyPages();
		return 'capped';
	};
	while (ending === undefined) {
		// A full page `maxPages` is no end: one page past the cap, read alone, must show nothing new.
		const probe = next === options.maxPages + 1;
		if (next > options.maxPages + 1) {
			ending = cap();
			break;
		}
		// 4 pages ahead, then twice as many each round up to `lookahead`, never past the end `meta`
		// says; past it one page at a time (a full page there is no end: the count may be off).
		let width = options.sequential ? 1 : Math.min(ahead, options.lookahead);
		ahead *= 2;
		if (count !== undefined && next <= count + 1)
			width = Math.min(width, Math.max(1, count - next + 1));
		// Nor past the end page read first (while the chain has not passed it).
		if (trusted && next <= trusted.pageNumber)
			width = Math.min(width, trusted.pageNumber - next + 1);
		width = Math.min(width, Math.max(1, options.maxPages - next + 1));
		if (options.limit !== undefined)
			width = Math.min(width, Math.max(1, Math.ceil((options.limit - unique) / pageSize)));
		const reads = await options.inParallel(
			width,
			options.concurrency,
			async (i) => await read(next + i),
		);
		for (const page of reads) {
			const ids = idsOf(page);
			const repeat =
				page.items.length > 0 &&
				ids.length === page.items.length &&
				ids.every((id) => seen.has(id));
			if (repeat) {
				const kind = await classifyRepeat(page, chain[chain.length - 1], read, options.pages);
				if (kind !== 'shifted') {
					ending = kind;
					break;
				}
				if (++repeats > MAX_REPEATS) throw options.restless();
			} else if (probe && page.items.length > 0) {
				ending = cap();
				break;
			} else {
				repeats = 0;
			}
			chain.push(page);
			unique += page.items.length - ids.length;
			for (const id of ids) {
				if (seen.has(id)) continue;
				seen.add(id);
				unique++;
			}
			ending = endingOf(page);
			if (ending !== undefined) break;
		}
		next += width;
	}

	const last = chain[chain.length - 1];
	const agreed = trusted !== undefined || last.pageNumber === early?.pageNumber;
	const proven =
		endFirst && agreed && provenFirst([...endFirst.reads, ...chain], early, pageSize)
			? endFirst
			: undefined;
	if (ending === 'end' && last.items.length === 0 && !proven) {
		const pages = contradictedEnd(last, first, pageSize);
		// A listing that also loses records may have lost that page: read it, then page 1, again.
		const still = async () =>
			(await read(last.pageNumber)).items.length > 0 ||
			contradictedEnd(last, await read(1), pageSize) !== undefined;
		if (pages !== undefined && (grows || (await still()))) {
			const detail = { pageNumber: last.pageNumber, status: last.missing, pages };
			throw (
				options.contradicted?.(detail) ??
				new Error(`page ${last.pageNumber} is past the end although page 1 said ${pages} pages`)
			);
		}
	}
	const toEnd = ending === 'end' || ending === 'clamped';
	const result = {
		topId,
		capped: ending === 'capped',
		pageIgnored: ending === 'ignored',
		reachedEnd: toEnd,
	};
	const need =
		ending === 'limit'
			? lowestId(merge(chain, new Map(), options.limit))
			: toEnd && last.items.length === 0
				? -Infinity
				: lowestId(last.items);

	if (!grows) {
		const reads = result.pageIgnored
			? chain
			: await closeGaps(
					chain,
					toEnd ? last : undefined,
					toEnd ? -Infinity : need,
					read,
					{ ...options, pageSize, rounds: MAX_REPEATS },
					proven,
				);
		// The latest read of each record wins (a scan processed again has new data).
		return { ...result, records: merge([...reads].reverse(), new Map(), options.limit), requests };
	}

	let open: number[] = [];
	if (!result.pageIgnored)
		for (let i = 0; i + 1 < chain.length; i++) if (!joins(chain[i], chain[i + 1])) open.push(i);
	// The chain's last page read once more, after every other read: did the reads miss anything?
	// (Its records count as read, so they are output too.)
	let check: Read | undefined;
	if (open.length > 0) {
		check = await read(last.pageNumber);
		if (provesAll(chain, check, need, pageSize)) open = [];
	}
	const repairs =
		open.length === 0
			? new Map<number, Read[]>()
			: await repairGaps(chain, open, read, pageSize, options);
	if (check) repairs.set(chain.length - 1, [...(repairs.get(chain.length - 1) ?? []), check]);
	return { ...result, records: merge(chain, repairs, options.limit), requests };
}
