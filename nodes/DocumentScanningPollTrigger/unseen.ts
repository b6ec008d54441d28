import { LATE_MS } from '../shared/transport/listingPages';
import type { UnseenRange } from './state';

/**
 * The window for scans that become visible late (parallel uploads: scan 4 listed after 5, when
 * a poll that listed 5 moved its horizon past 4). Every ID between the lowest and the highest a
 * poll listed that it did not see is remembered as unseen (ranges: one entry per gap). Later
 * polls read the listing down to the lowest unseen ID, and a scan that shows up there is new:
 * emitted (or followed) like one above the horizon, once. A range is looked for until at least
 * LATE_CHECKS later polls listed past it AND LATE_MS went by since it was first missed; the
 * MAX_UNSEEN newest ranges are kept. One found unfinished below the window is still followed
 * (with a warning, commit.ts); one found finished there cannot be told from an old one, and is
 * not emitted. With IDs shared by many accounts every gap is a range, and the polls in the
 * window read down to the scans of its last 10 minutes.
 */

/** Later polls that must have listed past an unseen range before it may be dropped. */
export const LATE_CHECKS = 2;
/** Unseen ranges kept at most (the newest). */
export const MAX_UNSEEN = 200;

export function inUnseen(ranges: UnseenRange[], id: number): boolean {
	return ranges.some((range) => range.from <= id && id <= range.to);
}

/** The lowest unseen ID (the listing is read down to it), or undefined. */
export function lowestUnseen(ranges: UnseenRange[]): number | undefined {
	return ranges.length === 0 ? undefined : Math.min(...ranges.map((range) => range.from));
}

/** The parts of from…to that are not in `seen` (sorted ascending). */
function holes(from: number, to: number, seen: number[]): Array<[number, number]> {
	const parts: Array<[number, number]> = [];
	let start = from;
	for (const id of seen) {
		if (id < start) continue;
		if (id > to) break;
		if (id > start) parts.push([start, id - 1]);
		start = id + 1;
	}
	if (start <= to) parts.push([start, to]);
	return parts;
}

/**
 * The unseen ranges after a poll that listed `ids` (lowest `low`) and moved the horizon from
 * `before` to `after`: listed IDs leave their range; what the poll listed past counts one more
 * check; new gaps above `before` join with `since` = now; expired ranges go.
 */
export function updateUnseen(
	ranges: UnseenRange[],
	listed: { low: number; ids: Set<number> } | undefined,
	before: number,
	after: number,
	now: number,
): UnseenRange[] {
	const seen = [...(listed?.ids ?? [])].sort((a, b) => a - b);
	const low = listed?.low ?? Infinity;
	const next: UnseenRange[] = [];
	for (const range of ranges) {
		for (const [from, to] of holes(range.from, range.to, seen)) {
			if (to < low) next.push({ ...range, from, to });
			else if (from >= low) next.push({ ...range, from, to, checks: range.checks + 1 });
			else {
				next.push({ ...range, from, to: low - 1 });
				next.push({ ...range, from: low, to, checks: range.checks + 1 });
			}
		}
	}
	if (listed && after > before)
		for (const [from, to] of holes(Math.max(low, before + 1), after, seen))
			next.push({ from, to, since: now, checks: 0 });
	return next
		.filter((range) => range.checks < LATE_CHECKS || now - range.since < LATE_MS)
		.sort((a, b) => b.to - a.to)
		.slice(0, MAX_UNSEEN);
}
