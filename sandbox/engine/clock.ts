/** Wall clock plus an offset that tests can advance (rolling-hour limit, timestamps). */
export class VirtualClock {
	private offsetMs = 0;

	now(): number {
		return Date.now() + this.offsetMs;
	}

	advance(ms: number): void {
		if (!Number.isFinite(ms)) throw new Error('advanceClock needs a finite number of milliseconds');
		this.offsetMs += ms;
	}

	reset(): void {
		this.offsetMs = 0;
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
