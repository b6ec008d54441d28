import type { IDataObject } from 'n8n-workflow';

/**
 * The record of deliveries that started an execution, in static data: `recentDeliveries: {
 * <delivery key>: <signed at, epoch ms> }`; a key in it is a repeat (200, no execution). Only
 * deliveries whose secret the service holds write it (keyCarrier.ts). n8n writes static data
 * back whole after each webhook request, without a lock: copies at the same moment both run, and
 * deliveries at once may drop each other's key (at least once; items carry `deliveryKey`).
 * Keys are kept for the replay tolerance, at least an hour, at most MAX_REMEMBERED: beyond it
 * the oldest by signed time go, and `forgottenUpTo` keeps the latest that went. Deliveries signed
 * at or before it are late (replay.ts): the tolerance shrinks, no forgotten key runs again.
 */

/** Keys are kept at least this long (and at least the replay tolerance). */
export const REPEAT_WINDOW_MIN_SECONDS = 3_600;
/** At most this many keys (the spec's 200 uploads an hour make this several hours of events). */
export const MAX_REMEMBERED = 1_000;

export const RECORD_FIELD = 'recentDeliveries';
export const FORGOTTEN_FIELD = 'forgottenUpTo';

/** How long a key is remembered: the replay tolerance, and at least an hour (also when it is off). */
export function repeatWindowSeconds(replayToleranceSeconds: number): number {
	return Math.max(replayToleranceSeconds, REPEAT_WINDOW_MIN_SECONDS);
}

/** The record's entries that are well formed (anything else in static data is ignored). */
function entriesOf(stored: IDataObject): Array<[string, number]> {
	const record = stored[RECORD_FIELD];
	if (typeof record !== 'object' || record === null || Array.isArray(record)) return [];
	return Object.entries(record as IDataObject).filter(
		(entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]),
	);
}

/** When the delivery with this key was signed, while it is remembered; else undefined. */
export function firstReceivedAt(
	stored: IDataObject,
	key: string,
	nowMs: number,
	windowSeconds: number,
): number | undefined {
	const entry = entriesOf(stored).find(([known]) => known === key);
	if (entry === undefined || nowMs - entry[1] > windowSeconds * 1000) return undefined;
	return entry[1];
}

/** The latest signed time whose key had to be forgotten (-Infinity: none). */
export function forgottenUpTo(stored: IDataObject): number {
	const value = stored[FORGOTTEN_FIELD];
	return typeof value === 'number' && Number.isFinite(value) ? value : -Infinity;
}

/**
 * Adds the key (signed at `signedAt`) and drops keys past the window, then the oldest beyond
 * MAX_REMEMBERED. The record is assigned anew, which marks the static data as changed, so n8n
 * writes it back. Returns the new `forgottenUpTo` when keys inside the window had to go.
 */
export function remember(
	stored: IDataObject,
	key: string,
	signedAt: number,
	nowMs: number,
	windowSeconds: number,
): number | undefined {
	const kept = entriesOf(stored)
		.filter(([known, at]) => known !== key && nowMs - at <= windowSeconds * 1000)
		.sort((a, b) => a[1] - b[1]);
	const dropped = kept.splice(0, Math.max(0, kept.length + 1 - MAX_REMEMBERED));
	const record: IDataObject = {};
	for (const [known, at] of [...kept, [key, signedAt] as [string, number]]) {
		// defineProperty: a key is data, whatever its text (e.g. "__proto__" is no prototype).
		Object.defineProperty(record, known, {
			value: at,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	stored[RECORD_FIELD] = record;
	if (dropped.length === 0) return undefined;
	stored[FORGOTTEN_FIELD] = Math.max(forgottenUpTo(stored), dropped[dropped.length - 1][1]);
	return stored[FORGOTTEN_FIELD] as number;
}
