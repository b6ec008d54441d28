import { HOUR_MS } from './window';

/** What the node knows of the account's limits before the first upload of an execution. */
export interface Limits {
	/** `remaining_scans` of GET /account; undefined when the answer has no usable number. */
	credits: number | undefined;
	/** Uploads allowed per rolling hour (the service's 200, or the node's lower hourly budget). */
	hourlyLimit: number;
	/** The service's time of the count. */
	serverNow: number;
	/** Creation times of the uploads in the last hour, oldest first (service clock). */
	times: number[];
}

export type HoldReason = 'hourlyLimit' | 'credit';

export interface Hold {
	reason: HoldReason;
	/** When a retry can succeed (service clock, epoch ms); undefined for credit (it does not come back by waiting). */
	retryAfter: number | undefined;
}

export interface Plan {
	documents: number;
	/** Documents that can be uploaded now. */
	fits: number;
	slotsLeft: number;
	credits: number | undefined;
	/** Why the document at `position` (0-based among the documents) waits, or undefined when it fits. */
	holdOf(position: number): Hold | undefined;
	/** When the next hourly slot frees up (service clock, epoch ms). */
	nextSlotAt: number;
	/** When the whole batch fits in the hourly limit (service clock), if the credit suffices. */
	allFitAt: number;
}

/**
 * Decides which of `documents` uploads fit now. Every document counts as one upload and one
 * credit (a file the service already has may turn out free, but the service checks the limit
 * before it says so). The k-th document past the free slots can go when the k-th oldest upload
 * of the window leaves it (its creation + 1 hour); past the window's uploads, when this batch's
 * own uploads leave it.
 */
export function planBudget(limits: Limits, documents: number): Plan {
	const count = limits.times.length;
	const slotsLeft = Math.max(0, limits.hourlyLimit - count);
	const credits = limits.credits === undefined ? undefined : Math.max(0, limits.credits);
	const fits = Math.min(documents, slotsLeft, credits ?? Infinity);
	// Uploads that must leave the window before one more fits.
	const over = Math.max(0, count - limits.hourlyLimit);
	const freeAt = (k: number) => {
		const index = over + k;
		return index < count ? limits.times[index] + HOUR_MS : limits.serverNow + HOUR_MS;
	};
	return {
		documents,
		fits,
		slotsLeft,
		credits,
		nextSlotAt: freeAt(0),
		allFitAt: freeAt(Math.max(0, documents - slotsLeft - 1)),
		holdOf(position) {
			if (position < fits) return undefined;
			if (credits !== undefined && position >= credits)
				return { reason: 'credit', retryAfter: undefined };
			return { reason: 'hourlyLimit', retryAfter: freeAt(position - slotsLeft) };
		},
	};
}
