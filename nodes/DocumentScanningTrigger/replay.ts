/**
 * Replay protection: a delivery runs only when its signed `timestamp` lies within a tolerance
 * of this machine's clock, in the past or the future. The timestamp is part of the signed body,
 * so a captured delivery cannot be re-stamped. A delivery outside is late: answered 200 (never a
 * failure that costs the webhook), no execution, a warning in n8n's log naming event and scan.
 * It needs no state: repeats inside the tolerance run, each with the same `deliveryKey`.
 */

/**
 * Default tolerance in seconds: 5 minutes in node version 1; an hour from 1.1, since a service's
 * queue or an n8n restart can delay a genuine delivery by minutes.
 */
export const DEFAULT_REPLAY_TOLERANCE_SECONDS = 3_600;
const VERSION_1_TOLERANCE_SECONDS = 300;

/** ISO 8601 date and time with an offset (`Z`, `+02:00` or `+0200`), optional fraction. */
const ISO_WITH_OFFSET =
	/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/;

/** Milliseconds since the epoch, or undefined when `value` is not ISO 8601 with an offset. */
export function parseTimestamp(value: unknown): number | undefined {
	const match = typeof value === 'string' ? ISO_WITH_OFFSET.exec(value) : null;
	if (!match) return undefined;
	const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
	const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
	const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
	if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
	if (hour > 23 || minute > 59 || second > 59) return undefined;
	if (!zulu && (Number(oh) > 23 || Number(om) > 59)) return undefined;
	const offsetMinutes = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
	const millis = fraction ? Math.floor(Number(`0.${fraction}`) * 1000) : 0;
	// Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear keeps the year as written.
	const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
	date.setUTCFullYear(year);
	return date.getTime() - offsetMinutes * 60_000;
}

/** The option's value in seconds: a finite number >= 0, else the version's default. 0 turns the check off. */
export function replayToleranceSeconds(raw: unknown, typeVersion: number): number {
	const fallback =
		typeVersion < 1.1 ? VERSION_1_TOLERANCE_SECONDS : DEFAULT_REPLAY_TOLERANCE_SECONDS;
	const seconds = raw === undefined || raw === null || raw === '' ? NaN : Number(raw);
	return Number.isFinite(seconds) && seconds >= 0 ? seconds : fallback;
}

/**
 * Why the delivery's timestamp is refused, or undefined when it is accepted (or the check is
 * off). `nowMs` is this machine's clock; the message names the difference, so a wrong clock
 * shows up in the service's delivery logs.
 */
export function replayProblem(
	timestamp: unknown,
	toleranceSeconds: number,
	nowMs: number,
): string | undefined {
	if (toleranceSeconds === 0) return undefined;
	const signedAt = parseTimestamp(timestamp);
	if (signedAt === undefined) {
		return 'The signed body has no timestamp in ISO 8601 with an offset, so its age cannot be checked';
	}
	const skewSeconds = Math.round((nowMs - signedAt) / 1000);
	if (Math.abs(nowMs - signedAt) <= toleranceSeconds * 1000) return undefined;
	const direction =
		skewSeconds > 0 ? `${skewSeconds} s in the past` : `${-skewSeconds} s in the future`;
	return `The delivery's timestamp is ${direction}, outside the replay tolerance of ${toleranceSeconds} s (check that the n8n server's clock is right)`;
}
