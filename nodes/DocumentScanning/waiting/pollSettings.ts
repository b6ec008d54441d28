import type { IDataObject } from 'n8n-workflow';

/**
 * Poll settings of "Wait for Completion", as one execution's shared poller uses them.
 *
 * - First Poll Interval: the first read of a scan comes this long after it joined the
 *   poller (after its upload, or after the first Get), and no two reads of it come closer.
 * - Later reads: the gap grows with the time the scan has been waited for (15 % of it), so a
 *   short job is seen soon after it finishes and a long one is not asked for every second.
 * - Max Poll Interval: the gap never grows beyond this.
 * - Out-of-range values are clamped, never refused: to at least 0.2 s (no hammering the API)
 *   and at most 1 hour (far below the 2^31-1 ms timer limit, ~24.8 days).
 */
export const DEFAULT_POLL_INTERVAL_S = 0.5;
export const DEFAULT_MAX_POLL_INTERVAL_S = 10;
export const DEFAULT_WAIT_TIMEOUT_S = 300;

export const MIN_POLL_INTERVAL_S = 0.2;
export const MAX_POLL_INTERVAL_S = 3600;
/** Part of a scan's waiting time used as the gap before its next read. */
export const AGE_FACTOR = 0.15;
/** Longest single timer the poller arms; longer waits are re-armed (Node's limit is 2^31-1 ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface WaitSettings {
	firstDelayMs: number;
	maxDelayMs: number;
	timeoutMs: number;
}

function seconds(value: unknown, fallback: number): number {
	const number = Number(value);
	return Number.isFinite(number) && number > 0 ? number : fallback;
}

function clampInterval(value: number): number {
	return Math.min(MAX_POLL_INTERVAL_S, Math.max(MIN_POLL_INTERVAL_S, value));
}

/** Reads and clamps the "Wait for Completion" settings of an operation's options collection. */
export function waitSettings(options: IDataObject): WaitSettings {
	const first = clampInterval(seconds(options.pollInterval, DEFAULT_POLL_INTERVAL_S));
	const max = Math.max(
		first,
		clampInterval(seconds(options.maxPollInterval, DEFAULT_MAX_POLL_INTERVAL_S)),
	);
	return {
		firstDelayMs: Math.round(first * 1000),
		maxDelayMs: Math.round(max * 1000),
		timeoutMs: Math.round(seconds(options.waitTimeout, DEFAULT_WAIT_TIMEOUT_S) * 1000),
	};
}

/** Gap before the next read of a scan that has been waited for `waitedMs`. */
export function nextGapMs(settings: WaitSettings, waitedMs: number): number {
	return Math.min(settings.maxDelayMs, Math.max(settings.firstDelayMs, AGE_FACTOR * waitedMs));
}
