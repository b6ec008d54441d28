/**
 * Requests held before they are handled (fault kind `hold`): an answer that takes as long as a
 * test likes, without timing. A held request waits until `releaseHeld()` (or at most
 * HOLD_LIMIT_MS, so a test that forgets it does not hang), then is handled as usual. E.g. the
 * webhook trigger's full-scan read held while the workflow is re-activated.
 */

/** The longest a request stays held when nobody releases it. */
export const HOLD_LIMIT_MS = 30_000;

export class Holds {
	private waiting: Array<() => void> = [];

	/** Number of requests held now. */
	get count(): number {
		return this.waiting.length;
	}

	/** Resolves when released (or after HOLD_LIMIT_MS on the sandbox's cancellable timer). */
	async hold(sleep: (ms: number) => Promise<void>): Promise<void> {
		let release!: () => void;
		const released = new Promise<void>((resolve) => (release = resolve));
		this.waiting.push(release);
		await Promise.race([released, sleep(HOLD_LIMIT_MS)]);
		this.waiting = this.waiting.filter((other) => other !== release);
	}

	/** Lets every held request (or the oldest `count` of them) go on; returns how many. */
	release(count = Infinity): number {
		const due = this.waiting.slice(0, count);
		this.waiting = this.waiting.slice(due.length);
		for (const go of due) go();
		return due.length;
	}
}
