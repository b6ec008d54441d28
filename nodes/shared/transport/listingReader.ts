import type { IDataObject } from 'n8n-workflow';

import type { ListingPage } from './listingPages';
import { idsOf, isEndPage, pageCountOf, pageSizeOf, positive, recordId } from './listingPages';

/**
 * Reads a listing that is paged by position (`page` = 1, 2, …, newest first, IDs growing with
 * creation) while other clients may add records at the top. Pure: the requests come from
 * `fetchPage`, so the rules below are tested on their own over shifting, odd and hostile input.
 *
 * What can go wrong, and what this does about it:
 * - **A record pushed past the last page.** A record added while the listing is read moves
 *   every older one down a position, so the last page planned from page 1's count may no
 *   longer be the last. The listing ends only on a page that says so itself when it is read
 *   (empty, short, or its own `meta` / `links`).
 * - **A gap between two pages read side by side.** If page k is served after a record was
 *   added and page k+1 before, the record that moved from page k to page k+1 is on neither
 *   read. Two neighbouring reads are known to join when page k+1 was requested after page k
 *   came back, when they share a record, or when their `meta.total` shows that page k+1 saw
 *   at least as many records as page k. Otherwise page 1 is read once more at the end: when
 *   nothing was added since the start, every read joins; when something was, page k+1 is read
 *   again (and further pages until that read shares a record with the first one), which closes
 *   the gap.
 * - **A shifted page that looks like a server ignoring `page`.** A page whose records were all
 *   seen already is either a page shifted by 25 or more new records or page 1 again. It is
 *   taken for "the server ignores `page`" only when the server says so (`meta` names another
 *   page) or page 1, read again now, holds exactly the same records; otherwise reading goes on.
 *   More than `MAX_REPEATS` such pages in a row fail with `restless()`: never a silent stop.
 *
 * Records are output once each (by `id`), in page order; records added during the read may
 * be among them. Records without a usable `id` are kept as they come.
 */

export type { ListingPage } from './listingPages';
export { isEndPage, pageCountOf, pageSizeOf, recordId, saysLastPage } from './listingPages';

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
	tooManyPages: () => Error;
	restless: () => Error;
	/** Runs `task(0..count-1)` at most `width` at a time; results in index order. */
	inParallel: <T>(
		count: number,
		width: number,
		task: (index: number) => Promise<T>,
	) => Promise<T[]>;
}

export interface ListingResult {
	records: IDataObject[];
	/** The highest record ID on page 1 as first read: every older record was read. */
	topId: number | undefined;
	/** True when reading stopped at `maxPages` with `atMaxPages: 'stop'`. */
	capped: boolean;
	/** Requests sent. */
	requests: number;
}

/** Pages in a row whose records were all seen before reading fails (see `restless`). */
export const MAX_REPEATS = 3;

interface Read extends ListingPage {
	pageNumber: number;
	/** Logical times: a read whose request went out after another came back was served after it. */
	sent: number;
	received: number;
}

function totalOf(read: ListingPage): number | undefined {
	const total = Number(read.meta?.total);
	return read.meta?.total !== undefined && read.meta.total !== null && Number.isFinite(total)
		? total
		: undefined;
}

function overlaps(a: ListingPage, b: ListingPage): boolean {
	const ids = new Set(idsOf(a));
	return idsOf(b).some((id) => ids.has(id));
}

function sameRecords(a: ListingPage, b: ListingPage): boolean {
	const x = idsOf(a);
	const y = idsOf(b);
	return x.length === y.length && x.length === a.items.length && x.every((id, i) => id === y[i]);
}

/** Whether neighbouring reads are known to leave no record out between them. */
function joins(a: Read, b: Read): boolean {
	if (b.sent > a.received || overlaps(a, b)) return true;
	const ta = totalOf(a);
	const tb = totalOf(b);
	return ta !== undefined && tb !== undefined && tb >= ta;
}

export async function readListing(options: ListingReadOptions): Promise<ListingResult> {
	let clock = 0;
	let requests = 0;
	const read = async (pageNumber: number): Promise<Read> => {
		const sent = ++clock;
		requests++;
		const page = await options.fetchPage(pageNumber);
		const items = (Array.isArray(page.items) ? page.items : []).filter(
			(item) => typeof item === 'object' && item !== null,
		);
		return { ...page, items, pageNumber, sent, received: ++clock };
	};

	const first = await read(1);
	const pageSize = pageSizeOf(first, options.pageSize);
	const firstIds = idsOf(first);
	const topId = firstIds.length ? Math.max(...firstIds) : undefined;
	const chain: Read[] = [first];
	const seen = new Set<number>(firstIds);
	let unique = first.items.length - firstIds.length + seen.size;
	const enough = () => options.limit !== undefined && unique >= options.limit;
	const ends = (page: Read) =>
		isEndPage(page, page.pageNumber, pageSize) ||
		options.stopAfter?.(page.items) === true ||
		enough();

	/** A page all of whose records were seen: the server ignores `page`, or ≥ 25 records were added. */
	const ignoresPage = async (page: Read): Promise<boolean> => {
		const current = positive(page.meta?.current_page ?? page.meta?.page);
		if (current !== undefined) return current !== page.pageNumber;
		return sameRecords(await read(1), page);
	};

	let ended = ends(first);
	let capped = false;
	const count = pageCountOf(first, pageSize);
	// A listing already longer than the bound fails before reading it (unless a limit stops earlier).
	if (
		!ended &&
		count !== undefined &&
		count > options.maxPages &&
		options.atMaxPages === 'error' &&
		options.limit === undefined
	) {
		throw options.tooManyPages();
	}
	let next = 2;
	let ahead = 4;
	let repeats = 0;
	while (!ended) {
		if (next > options.maxPages) {
			if (options.atMaxPages === 'error') throw options.tooManyPages();
			capped = true;
			break;
		}
		let width = options.sequential
			? 1
			: count !== undefined && next <= count
				? count - next + 1
				: Math.min(ahead, options.lookahead);
		if (count === undefined || next > count) ahead *= 2;
		width = Math.min(width, options.maxPages - next + 1);
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
				if (await ignoresPage(page)) {
					ended = true;
					break;
				}
				if (++repeats > MAX_REPEATS) throw options.restless();
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
			if (ends(page)) {
				ended = true;
				break;
			}
		}
		next += width;
	}

	const repairs = await repairGaps(chain, read, topId, pageSize, options);
	return { records: merge(chain, repairs, options.limit), topId, capped, requests };
}

/** Reads that close the gaps between neighbouring reads not known to join, by position in `chain`. */
async function repairGaps(
	chain: Read[],
	read: (pageNumber: number) => Promise<Read>,
	topId: number | undefined,
	pageSize: number,
	options: ListingReadOptions,
): Promise<Map<number, Read[]>> {
	const repairs = new Map<number, Read[]>();
	let open: number[] = [];
	for (let i = 0; i + 1 < chain.length; i++) if (!joins(chain[i], chain[i + 1])) open.push(i);
	if (open.length === 0) return repairs;

	// Nothing added since page 1 was first read: no record moved, every read joins.
	const proven = (i: number) =>
		totalOf(chain[i]) !== undefined && totalOf(chain[i + 1]) !== undefined;
	const check = await read(1);
	const added = idsOf(check).some((id) => topId === undefined || id > topId);
	if (!added) open = open.filter(proven);

	await options.inParallel(open.length, options.concurrency, async (position) => {
		const i = open[position];
		const before = chain[i + 1];
		const reads: Read[] = [];
		let page = await read(before.pageNumber);
		reads.push(page);
		// Until the new read joins the old one (or the listing ends there).
		while (!overlaps(page, before) && !isEndPage(page, page.pageNumber, pageSize)) {
			if (page.pageNumber + 1 > options.maxPages) throw options.restless();
			page = await read(page.pageNumber + 1);
			reads.push(page);
		}
		repairs.set(i, reads);
	});
	return repairs;
}

function merge(
	chain: Read[],
	repairs: Map<number, Read[]>,
	limit: number | undefined,
): IDataObject[] {
	const seen = new Set<number>();
	const records: IDataObject[] = [];
	const add = (page: ListingPage) => {
		for (const record of page.items) {
			const id = recordId(record);
			if (id !== undefined) {
				if (seen.has(id)) continue;
				seen.add(id);
			}
			records.push(record);
		}
	};
	chain.forEach((page, i) => {
		add(page);
		for (const repair of repairs.get(i) ?? []) add(repair);
	});
	return limit === undefined ? records : records.slice(0, limit);
}
