import type { IDataObject } from 'n8n-workflow';

import { contradictedEnd } from './listingEnds';
import type { InParallel, Read } from './listingPages';
import { idsOf, isEndPage, LATE_MS, recordId, sameRecords } from './listingPages';

/**
 * A listing whose records may join and leave while it is read (any status filter: scans move
 * on from `uploaded` and `processing`, and a finished scan processed again leaves its final
 * status). Ordered by ID, so a page read at time t holds every record listed at t with an ID
 * between its lowest and highest; page 1 every ID above, a page that ends the listing every ID
 * below. What no page covers is a gap: a record listed throughout may have slipped across a
 * page boundary there while records above it left.
 *
 * Page q read at time t (the check) holds the positions after (q-1)·size, so at t exactly
 * (q-1)·size records are listed above its highest ID (at most that many when it is empty). When
 * as many records above it were read before t and again after t, unchanged (same `status` and
 * `updated_at`: a scan that changes status gets a new one), those are all of them: every record
 * listed at t above page q was read (`around`), and the page below the lowest gap closes every gap. The
 * cost is the filtered pages above it read once more, never the account. A check that fails
 * (records above it changed meanwhile) is tried again, at most `rounds` times, then
 * `restless()` says so. Read first, the end page makes that second read unneeded (`readEndFirst`).
 */

/** The ID range each read covers: page 1 upwards, an end page (or `end`) downwards, a check that proves upwards. */
function spans(reads: Read[], proven: Set<Read>, end: Read | undefined, pageSize: number) {
	return reads.flatMap((read) => {
		const ids = idsOf(read);
		const down = read === end || isEndPage(read, pageSize);
		const up = read.pageNumber === 1 || proven.has(read);
		if (ids.length === 0) return up && down ? [{ low: -Infinity, high: Infinity, page: 1 }] : [];
		const low = down ? -Infinity : Math.min(...ids);
		return [{ low, high: up ? Infinity : Math.max(...ids), page: read.pageNumber }];
	});
}

/**
 * The page below the lowest gap above `need` (records below it are not needed), or undefined
 * when the reads cover every ID down to `need`. The bottom is open (the last page read is the
 * check) when no read covers downwards: the listing ended on an empty page.
 */
export function gapBelow(
	reads: Read[],
	proven: Set<Read>,
	end: Read | undefined,
	need: number,
	pageSize: number,
): number | undefined {
	if (reads[0].items.length === 0) return undefined;
	const all = spans(reads, proven, end, pageSize).sort((a, b) => b.high - a.high);
	if (all[0]?.high !== Infinity) return 1;
	let covered = all[0].low;
	let page: number | undefined;
	for (const span of all.slice(1)) {
		if (covered <= need) break;
		if (covered - span.high > 1) page = span.page;
		covered = Math.min(covered, span.low);
	}
	return covered > need ? Math.max(...reads.map((read) => read.pageNumber)) : page;
}

const version = (record: IDataObject) => `${String(record.status)} ${String(record.updated_at)}`;
const time = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : NaN);
const stamp = (record: IDataObject) => time(record.updated_at);

/**
 * Finds the end page after page 1: the check, read before the pages above it. First the newest
 * pages while their oldest scan is within LATE_MS of the service's time (to be known before and
 * after it), then `meta`'s count, else 4, 8, …, then halving; never past `maxPages + 1`. No check
 * when no read showed an end or a page came again; `trusted` unless 404 / 422 or `meta` says more.
 */
export async function readEndFirst(
	first: Read,
	count: number | undefined,
	read: (pageNumber: number) => Promise<Read>,
	pageSize: number,
	maxPages: number,
): Promise<{ reads: Read[]; check?: Read; trusted?: boolean }> {
	const reads = [first];
	const date = time(first.headers?.date);
	const cut = (date || Math.max(-Infinity, ...first.items.map(stamp))) - LATE_MS;
	let recent = true;
	const next = (p: number, page: Read) => {
		recent &&= p < 10 && stamp(page.items[page.items.length - 1]) >= cut; // 200 an hour: 8 pages
		if (recent) return p + 1;
		if (count !== undefined && count <= maxPages && count > p) return count;
		return p === count ? p + 1 : Math.max(4, p * 2);
	};
	let full = 1;
	let end: Read | undefined;
	for (let p = Math.min(next(1, first), maxPages + 1); !end;) {
		const page = await read(p);
		// A page again (the server clamps or ignores `page`): the chain tells which.
		const again = reads.some((r) => sameRecords(r, page));
		reads.push(page);
		if (isEndPage(page, pageSize)) end = page;
		else if (p > maxPages || again) return { reads };
		else [full, p] = [p, Math.min(next(p, page), maxPages + 1)];
	}
	while (end.pageNumber - full > 1) {
		const page = await read(Math.floor((full + end.pageNumber) / 2));
		reads.push(page);
		if (isEndPage(page, pageSize)) end = page;
		else full = page.pageNumber;
	}
	const trusted = end.missing === undefined && !contradictedEnd(end, first, pageSize);
	return { reads, check: end, trusted };
}

/**
 * Whether every position above the end page `check` holds a record known to be listed when it was
 * read: read before and after it unchanged, or after it with an `updated_at` more than LATE_MS
 * older than the service's time before it (whole seconds too).
 */
export function provenFirst(reads: Read[], check: Read | undefined, pageSize: number): boolean {
	if (!check || idsOf(check).length !== check.items.length) return false;
	const size = Math.max(pageSize, ...reads.map((r) => r.items.length));
	const answered = reads.filter((r) => r.received < check.sent);
	const earlier = answered.flatMap((r) => r.items);
	// The service's time before the check: its `Date`, else its newest `updated_at`; less the
	// time a scan may take to become visible (a scan older than that was listed then).
	const dates = answered.map((r) => time(r.headers?.date)).filter(Number.isFinite);
	const times = dates.length > 0 ? dates : earlier.map(stamp).filter(Number.isFinite);
	const mark = Math.max(-Infinity, ...times) - LATE_MS;
	const before = new Map(earlier.map((record) => [recordId(record), version(record)]));
	const top = Math.max(-Infinity, ...idsOf(check));
	const listed = new Set<number>();
	for (const read of reads.filter((r) => r.sent > check.received))
		for (const record of read.items) {
			const id = recordId(record);
			if (id === undefined || id <= top) continue;
			if (stamp(record) < mark || before.get(id) === version(record)) listed.add(id);
		}
	return listed.size >= (check.pageNumber - 1) * size;
}

/**
 * The records above `check`'s highest ID read before it was sent, and how many of them were read
 * again after it came back, unchanged: listed when it was read.
 */
export function around(reads: Read[], check: Read): { before: number; again: number } {
	const top = Math.max(-Infinity, ...idsOf(check));
	const before = new Map<number, string>();
	const again = new Set<number>();
	for (const after of [false, true])
		for (const read of reads.filter((r) =>
			after ? r.sent > check.received : r.received < check.sent,
		))
			for (const record of read.items) {
				const id = recordId(record);
				if (id === undefined || id <= top) continue;
				if (!after) before.set(id, version(record));
				else if (before.get(id) === version(record)) again.add(id);
			}
	return { before: before.size, again: again.size };
}

/**
 * Checks the page below the lowest gap and reads the pages above it again, until no gap above
 * `need` is left; returns every read, oldest first. The chain's page is the first check
 * when as many records above it were read before it; otherwise the page is read once more.
 */
export async function closeGaps(
	chain: Read[],
	end: Read | undefined,
	need: number,
	read: (pageNumber: number) => Promise<Read>,
	options: {
		pageSize: number;
		rounds: number;
		restless: () => Error;
		inParallel: InParallel;
		concurrency: number;
	},
	/** When `provenFirst` held: the reads before the chain, and the end page among them. */
	first?: { reads: Read[]; check?: Read },
): Promise<Read[]> {
	const reads = [...(first?.reads ?? []), ...chain];
	const proven = new Set<Read>(first?.check ? [first.check] : []);
	for (let round = 0; ; round++) {
		const page = gapBelow(reads, proven, end, need, options.pageSize);
		if (page === undefined) return reads;
		if (round === options.rounds) throw options.restless();
		// A server sending more than it says never makes the count look complete.
		const size = Math.max(options.pageSize, ...reads.map((r) => r.items.length));
		let check = round === 0 ? chain.find((r) => r.pageNumber === page) : undefined;
		if (!check || around(reads, check).before < (page - 1) * size) {
			check = await read(page);
			reads.push(check);
		}
		const above = await options.inParallel(
			page - 1,
			options.concurrency,
			async (i) => await read(i + 1),
		);
		reads.push(...above);
		if (around(reads, check).again >= (page - 1) * size) proven.add(check);
	}
}
