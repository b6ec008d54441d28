import { HOUR_MS, SECOND_ROUNDING_MS } from './window';

/** What the node knows of the account's limits before the first upload of an execution. */
export interface Limits {
	/** `remaining_scans` of GET /account; undefined when the answer has no usable number. */
	credits: number | undefined;
	/** Uploads allowed per rolling hour (the service's 200, or the node's lower hourly budget). */
	hourlyLimit: number;
	/** The service's time of the count. */
	serverNow: number;
	/** Creation times of the uploads that may still be in the rolling hour, oldest first (service clock). */
	times: number[];
}

export type HoldReason = 'hourlyLimit' | 'credit';

export interface Hold {
	reason: HoldReason;
	/** From when a retry can succeed for certain (service clock, epoch ms); undefined for credit. */
	retryAfter: number | undefined;
}

export interface Plan {
	/** New uploads the batch needs (documents the service already has and repeats excluded). */
	documents: number;
	/** Uploads that can be made now. */
	fits: number;
	slotsLeft: number;
	credits: number | undefined;
	/** When the next hourly slot is free for certain (service clock, epoch ms). */
	nextSlotAt: number;
	/**
	 * When every upload of the batch fits in the hourly limit (service clock), if the credit
	 * suffices; undefined when the batch needs more uploads than the hourly limit allows at all.
	 */
	allFitAt: number | undefined;
}

/**
 * When the upload at `position` past the free slots (0-based) can go: when the window's upload
 * it waits for has left the rolling hour for certain (`times`: the window's uploads and this
 * execution's own); past them the time is not known yet (undefined).
 */
export function slotFreeAt(times: number[], hourlyLimit: number, position: number) {
	const index = Math.max(0, times.length - hourlyLimit) + position;
	return index < times.length ? times[index] + HOUR_MS + SECOND_ROUNDING_MS : undefined;
}

/**
 * How many of `documents` new uploads fit now: the hourly slots left or the credit, whichever is
 * fewer. A slot is promised free SECOND_ROUNDING_MS after the hour passed from the time shown.
 */
export function planBudget(limits: Limits, documents: number): Plan {
	const count = limits.times.length;
	const slotsLeft = Math.max(0, limits.hourlyLimit - count);
	const credits = limits.credits === undefined ? undefined : Math.max(0, limits.credits);
	const fits = Math.min(documents, slotsLeft, credits ?? Infinity);
	const later = (position: number) =>
		slotFreeAt(limits.times, limits.hourlyLimit, position) ??
		limits.serverNow + HOUR_MS + SECOND_ROUNDING_MS;
	return {
		documents,
		fits,
		slotsLeft,
		credits,
		nextSlotAt: later(0),
		allFitAt:
			documents > limits.hourlyLimit ? undefined : later(Math.max(0, documents - slotsLeft - 1)),
	};
}
