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
	/**
	 * From when a retry can succeed (service clock, epoch ms): the moment the slot it needs is
	 * free for certain. Undefined for credit (it does not come back by waiting).
	 */
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
 * When the upload at `position` past the free slots (0-based) can go: when the upload of the
 * window it waits for has left the rolling hour for certain. `times` holds every upload of the
 * window, this execution's own included once they were made; past them, the uploads before it
 * in this batch must have gone and left the hour first, so the time is not known yet
 * (undefined).
 */
export function slotFreeAt(times: number[], hourlyLimit: number, position: number) {
	const index = Math.max(0, times.length - hourlyLimit) + position;
	return index < times.length ? times[index] + HOUR_MS + SECOND_ROUNDING_MS : undefined;
}

/**
 * Decides how many of `documents` new uploads fit now: the hourly slots left and the credit,
 * whichever is fewer. A `created_at` shows whole seconds, so an upload shown at 12:00:00 may
 * have been made until 12:00:00.999: a slot is promised free one second after the hour has
 * passed from the time shown (SECOND_ROUNDING_MS), never earlier than it is.
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
