/** Tracks timers so that reset()/close() can cancel all of them at once. */
export class Scheduler {
	private readonly timers = new Set<NodeJS.Timeout>();

	after(ms: number, fn: () => void): void {
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			fn();
		}, ms);
		this.timers.add(timer);
	}

	/** Resolves after `ms`; never resolves if cancelled first (the caller is being torn down). */
	sleep(ms: number): Promise<void> {
		return new Promise((resolve) => this.after(ms, resolve));
	}

	cancelAll(): void {
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
	}
}
