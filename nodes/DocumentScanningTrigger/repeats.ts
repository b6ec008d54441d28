import type { IDataObject } from 'n8n-workflow';

/**
 * The record of recent deliveries that started an execution, in the node's workflow static data:
 * `recentDeliveries: { <delivery key>: <signed at, ms since the epoch> }`. A delivery whose key
 * is in it is a repeat: answered 200, no execution. Only deliveries whose secret the service
 * holds write it (keyCarrier.ts): a write-back of an older copy then costs no registration.
 *
 * n8n reads a workflow's static data when a webhook request arrives and writes it back whole
 * after `webhook()` returned, in whichever process took the request, without a lock: copies
 * handled at the same moment both run, and two deliveries handled at once may drop each other's
 * key. Each item carries its `deliveryKey` for a sink that takes each result once (at least once).
 *
 * A key is kept while a repeat of its delivery could be inside the replay tolerance, and at
 * least an hour. At most MAX_REMEMBERED keys: when more are needed, the oldest (by signed time)
 * go, and `forgottenUpTo` keeps the latest signed time that went. Deliveries signed at or before
 * it are late (replay.ts): the tolerance in effect shrinks, and no forgotten key runs again.
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
