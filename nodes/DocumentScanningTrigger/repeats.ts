import type { IDataObject } from 'n8n-workflow';

/**
 * The record of recent deliveries that started an execution, kept in the node's workflow
 * static data as `recentDeliveries: { <delivery key>: <first received, ms since the epoch> }`.
 * A delivery whose key is in it is a repeat: answered 200, no execution.
 *
 * n8n reads a workflow's static data from its database when a webhook request arrives and
 * writes it back whole after the node's `webhook()` returned, in whichever process took the
 * request (main, or any webhook process in queue mode). So the record is shared by every
 * process, but nothing about it is atomic: a repeat that arrives while the first delivery is
 * still being handled is not recognised, and two deliveries handled at the same moment each
 * write back the record they read, so the later write drops the other's key. Every item
 * carries its `deliveryKey` for those cases (docs/reference.md, "Repeated deliveries").
 */

/** Keys are kept at least this long (and at least the replay tolerance). */
export const REPEAT_WINDOW_MIN_SECONDS = 3_600;
/**
 * At most this many keys. The spec's limit of 200 uploads per rolling hour means an hour holds
 * at most 200 scans' events per account, so the bound is reached only beyond it; then the
 * oldest keys go first, with a warning in n8n's log.
 */
export const MAX_REMEMBERED = 1_000;

export const RECORD_FIELD = 'recentDeliveries';

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

/** When the delivery with this key was first received within the window, or undefined. */
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

/**
 * Adds the key (received now) and drops keys older than the window, then the oldest beyond
 * MAX_REMEMBERED. The whole record is assigned anew, which marks the static data as changed,
 * so n8n writes it back. Returns how many keys still inside the window had to go.
 */
export function remember(
	stored: IDataObject,
	key: string,
	nowMs: number,
	windowSeconds: number,
): number {
	const kept = entriesOf(stored)
		.filter(([known, at]) => known !== key && nowMs - at <= windowSeconds * 1000)
		.sort((a, b) => a[1] - b[1]);
	const dropped = Math.max(0, kept.length + 1 - MAX_REMEMBERED);
	const record: IDataObject = {};
	for (const [known, at] of kept.slice(dropped)) {
		// defineProperty: a key is data, whatever its text (e.g. "__proto__" is no prototype).
		Object.defineProperty(record, known, {
			value: at,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	Object.defineProperty(record, key, {
		value: nowMs,
		enumerable: true,
		writable: true,
		configurable: true,
	});
	stored[RECORD_FIELD] = record;
	return dropped;
}
