/**
 * Wall clock plus an offset that tests can advance (rolling-hour limit, timestamps). Frozen, it
 * stands still until advanced: a test that moves it to just before a limit frees stays there,
 * however slow the machine.
 */
export class VirtualClock {
	private offsetMs = 0;
	private frozenAt: number | undefined;

	now(): number {
		return this.frozenAt ?? Date.now() + this.offsetMs;
	}

	advance(ms: number): void {
		if (!Number.isFinite(ms)) throw new Error('advanceClock needs a finite number of milliseconds');
		if (this.frozenAt !== undefined) this.frozenAt += ms;
		else this.offsetMs += ms;
	}

	/** Stops the clock at now (or at `at`, epoch ms); `false` lets it run on from where it stands. */
	freeze(on: boolean, at?: number): void {
		const now = at ?? this.now();
		if (on) this.frozenAt = now;
		else {
			this.offsetMs = now - Date.now();
			this.frozenAt = undefined;
		}
	}

	reset(): void {
		this.offsetMs = 0;
		this.frozenAt = undefined;
	}
}

/** ISO 8601 with an explicit offset and whole seconds: 2024-05-01T12:00:00+00:00 (scans, webhooks, logs). */
export function isoWithOffset(ms: number): string {
	return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** ISO 8601 with fractional seconds (microseconds) and a Z suffix: 2024-05-01T12:00:00.123000Z (templates). */
export function isoZulu(ms: number): string {
	return new Date(ms).toISOString().replace(/Z$/, '000Z');
}
