import type { IDataObject } from 'n8n-workflow';

import { scanIdOf } from './state';

/**
 * How far one poll reads the listing, so followed scans that finished come out at the next poll
 * at a bounded number of requests. Pages are read one after the other until one reaches the
 * horizon and the lowest unseen ID (unseen.ts); then on while followed scans not seen yet lie
 * below the page just read and reading on is worth it: more of them than the poll's single
 * fetches (`singles`), or at least two while the page just read held one too (a batch of
 * uploads). A page covers 25 scans for one request, so 200 followed scans cost 8 pages instead
 * of 200 fetches. At most FOLLOW_MAX_PAGES pages past the horizon; the followed scans still
 * unseen then, or deeper than the batch, are fetched one by one (`singles` a poll).
 */

/** Pages a poll reads past the horizon towards followed scans, at most (1,000 scans). */
export const FOLLOW_MAX_PAGES = 40;

export interface FollowInput {
	horizon: number;
	/** The lowest unseen ID, if any (the listing is read down to it as to the horizon). */
	unseenFloor?: number;
	/** Followed (pending) scan IDs. */
	pending: number[];
	/** Single fetches a poll may make. */
	singles: number;
}

/** A `stopAfter` for the poll's listing: true after the last page worth reading. */
export function followPlan(input: FollowInput): { stopAfter: (items: IDataObject[]) => boolean } {
	const target = Math.min(input.horizon, input.unseenFloor ?? Infinity);
	const unseenFollowed = new Set(input.pending);
	let reached = false;
	let extra = 0;
	return {
		stopAfter: (items) => {
			const ids = items.map(scanIdOf).filter((id): id is number => id !== undefined);
			let heldFollowed = false;
			for (const id of ids) if (unseenFollowed.delete(id)) heldFollowed = true;
			if (!reached) {
				if (!ids.some((id) => id <= target)) return false;
				reached = true;
			} else {
				extra++;
			}
			const low = ids.length > 0 ? Math.min(...ids) : -Infinity;
			const below = [...unseenFollowed].filter((id) => id < low).length;
			if (below === 0 || extra >= FOLLOW_MAX_PAGES) return true;
			if (below > input.singles) return false;
			return !(heldFollowed && below > 1);
		},
	};
}
