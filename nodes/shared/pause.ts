import * as workflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/** Longest single sleep of the fallback: how long a timer may outlive an abort. */
export const PAUSE_SLICE_MS = 1000;

type SleepWithAbort = (ms: number, abortSignal?: AbortSignal) => Promise<void>;

/** The error an aborted pause rejects with (callers catch it and stop waiting). */
export class PauseAbortedError extends Error {
	constructor() {
		super('The wait was cancelled');
		this.name = 'PauseAbortedError';
	}
}

/** Waits `ms` with `sleep` in slices of at most PAUSE_SLICE_MS; rejects as `signal` aborts. */
export async function slicedPause(ms: number, signal?: AbortSignal): Promise<void> {
	if (signal?.aborted) throw new PauseAbortedError();
	const until = Date.now() + ms;
	let onAbort = (): void => {};
	const aborted = new Promise<never>((_resolve, reject) => {
		onAbort = () => reject(new PauseAbortedError());
		signal?.addEventListener('abort', onAbort, { once: true });
	});
	aborted.catch(() => undefined);
	try {
		for (let left = until - Date.now(); left > 0; left = until - Date.now()) {
			await Promise.race([sleep(Math.min(left, PAUSE_SLICE_MS)), aborted]);
		}
	} finally {
		signal?.removeEventListener('abort', onAbort);
	}
}

/**
 * Waits `ms`; rejects when `signal` aborts. n8n 2.x no longer exports `sleepWithAbort`, and
 * community nodes must not call setTimeout themselves, so there slicedPause() stands in.
 */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
	const native = (workflow as unknown as { sleepWithAbort?: SleepWithAbort }).sleepWithAbort;
	if (typeof native === 'function') return await native(ms, signal);
	return await slicedPause(ms, signal);
}

/**
 * Waits `ms`, but no later than `deadline` and not past a cancel; true when the whole
 * pause was waited (so the request may be repeated), false when it was cut short.
 */
export async function pauseWithin(
	ms: number,
	deadline: number | undefined,
	signal?: AbortSignal,
): Promise<boolean> {
	if (signal?.aborted) return false;
	if (ms <= 0) return true;
	const left = deadline === undefined ? ms : Math.min(ms, deadline - Date.now());
	if (left <= 0) return false;
	// Cancelled: false, and the caller gives up with the error it already has.
	return await pause(left, signal).then(
		() => left >= ms,
		() => false,
	);
}
