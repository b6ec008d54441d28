import type { IDataObject } from 'n8n-workflow';

import type { InParallel, ListingPage, Read } from './listingPages';
import { around } from './listingCoverage';
import { idsOf, isEndPage, overlaps, recordId } from './listingPages';

/**
 * Gaps between pages read side by side, in a listing that only gains records (no filter or a
 * template: new scans at the top, a scan visible late in the middle).
 *
 * A record R that is listed from the start to the end of the read is missed only between two
 * neighbouring pages k, k+1 where R sat below page k when k was served and above page k+1 when
 * k+1 was served. Records only join, so R only moves down: that needs k+1 served before k, and
 * a record joining above R in between. Neighbours are known to join (no such R) when k+1 was
 * requested after k came back, when they share a record (the order of IDs is fixed), or when
 * `meta.total` of k+1 is at least that of k (equal totals: nothing joined in between).
 *
 * For the others, `provesAll` reads the chain's last page once more, at a time T after every
 * read: records only join, so every record read exists at T, and the page's position tells how
 * many records at T have an ID above its highest one (listingCoverage.ts). When as many were
 * read, nothing at T (so nothing listed throughout) was missed down to there. Otherwise each gap is
 * repaired: page k+1 is read again, and the pages after it, until a read shares a record with
 * the old page k+1 (or the listing ends); being read after page k, those reads miss nothing R
 * between k and the old k+1 (docs/design.md, "Listings read exactly once", gives the argument).
 */

/** Whether neighbouring reads are known to leave no record out between them. */
export function joins(a: Read, b: Read): boolean {
	if (b.sent > a.received || overlaps(a, b)) return true;
	const ta = totalOf(a);
	const tb = totalOf(b);
	return ta !== undefined && tb !== undefined && tb >= ta;
}

export function totalOf(read: ListingPage): number | undefined {
	const total = Number(read.meta?.total);
	return read.meta?.total !== undefined && read.meta.total !== null && Number.isFinite(total)
		? total
		: undefined;
}

/**
 * Whether `check` (the chain's last page read again after every other read) proves that every
 * record with an ID at or above `need` was read (`need` -Infinity: every record). Records
 * without an ID prove nothing. `pageSize` is the largest page size seen, so a server sending
 * more than it says never makes the count look complete.
 */
export function provesAll(chain: Read[], check: Read, need: number, pageSize: number): boolean {
	const all = [...chain, check];
	if (all.some((page) => idsOf(page).length !== page.items.length)) return false;
	const size = Math.max(pageSize, ...all.map((page) => page.items.length));
	// Records only join: every record read before the check is listed when it is read.
	if (around(all, check).before < (check.pageNumber - 1) * size) return false;
	return isEndPage(check, pageSize) || Math.min(...idsOf(check)) <= need;
}

/** Reads that close the open gaps (by position in `chain`), each until it joins the old page. */
export async function repairGaps(
	chain: Read[],
	open: number[],
	read: (pageNumber: number) => Promise<Read>,
	pageSize: number,
	options: { maxPages: number; restless: () => Error; inParallel: InParallel; concurrency: number },
): Promise<Map<number, Read[]>> {
	const { maxPages, restless } = options;
	const repairs = new Map<number, Read[]>();
	await options.inParallel(open.length, options.concurrency, async (position) => {
		const i = open[position];
		const before = chain[i + 1];
		const reads: Read[] = [];
		let page = await read(before.pageNumber);
		reads.push(page);
		// Until the new read joins the old one (or the listing ends there).
		while (!overlaps(page, before) && !isEndPage(page, pageSize)) {
			if (page.pageNumber + 1 > maxPages) throw restless();
			page = await read(page.pageNumber + 1);
			reads.push(page);
		}
		repairs.set(i, reads);
	});
	return repairs;
}

/**
 * The records of the chain with its repairs, each ID once, newest first (by ID when every record
 * has one, else in page order), at most `limit`.
 */
export function merge(
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
	// Newest first (IDs grow with creation), also for records that joined between two reads, or
	// that a repair or the check read added.
	if (records.every((record) => recordId(record) !== undefined))
		records.sort((a, b) => recordId(b)! - recordId(a)!);
	return limit === undefined ? records : records.slice(0, limit);
}
