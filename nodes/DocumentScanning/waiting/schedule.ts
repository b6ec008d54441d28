import type { WaitSettings } from './pollSettings';
import { MIN_POLL_INTERVAL_S, nextGapMs } from './pollSettings';

/** The shortest gap between two reads of a scan when it is read at its expected finish. */
export const EXPECTED_GAP_MS = MIN_POLL_INTERVAL_S * 1000;

/**
 * When one execution's poller reads each scan next. The rule of `nextGapMs` (First Poll
 * Interval, then 15 % of the time waited, at most Max Poll Interval), brought forward to the
 * time a scan is expected to finish: once a scan of the same template has been seen final,
 * the shortest time from joining to being seen final is that template's expected processing
 * time in this execution (scans of one batch are processed alike). A scan not final yet is
 * then read again at its expected finish, at least `EXPECTED_GAP_MS` after the last read,
 * until one First Poll Interval after that time has passed; later, the regular rule alone.
 * Nothing is ever read later than the regular rule says. Lives as long as its poller.
 */
export class Schedule {
	private readonly expected = new Map<number, number>();

	/** A scan of `templateId` was seen final `waitedMs` after it joined. */
	finished(templateId: number | undefined, waitedMs: number): void {
		const key = templateId ?? 0;
		const known = this.expected.get(key);
		if (waitedMs >= 0 && (known === undefined || waitedMs < known))
			this.expected.set(key, waitedMs);
	}

	/** The expected processing time of `templateId`'s scans, once one was seen final. */
	expectedMs(templateId: number | undefined): number | undefined {
		return this.expected.get(templateId ?? 0);
	}

	/** The time of the next read of a scan that joined at `joinedAt`, after a read at `now`. */
	nextRead(
		settings: WaitSettings,
		scan: { joinedAt: number; templateId?: number },
		now: number,
	): number {
		const regular = now + nextGapMs(settings, now - scan.joinedAt);
		const expected = this.expectedMs(scan.templateId);
		if (expected === undefined) return regular;
		const finish = scan.joinedAt + expected;
		if (now >= finish + settings.firstDelayMs) return regular;
		return Math.min(regular, Math.max(finish, now + EXPECTED_GAP_MS));
	}
}
