import type { IDataObject } from 'n8n-workflow';

import { FINAL_STATUSES } from '../shared/scans/status';

/**
 * The poll trigger's memory, kept in the workflow's static data (node scope) and nowhere
 * else: n8n may run a poll in another process than the previous one.
 *
 * - `horizon`: the highest scan ID a successful poll has listed. Every scan up to it was listed
 *   at least once (or existed before the first activation), except the IDs in `unseen`.
 * - `unseen`: ID ranges up to the horizon no poll has listed yet (parallel uploads), looked
 *   for a while (unseen.ts: the window); one that appears is new.
 * - `pending`: IDs seen unfinished (uploaded, processing, or a status the API does not list).
 * - `emitted`: the most recently emitted IDs, a bounded guard against emitting twice.
 * - `stuck`: strikes of pending IDs (a failed GET, an unlisted status), given up after
 *   STUCK_MAX_FAILURES (the caller logs it).
 * - `startId`: the first activation's horizon. Scans up to it are history: one found
 *   unfinished but not followed there was left out on purpose (older than the look back).
 *
 * A version 1 state reads as version 2 with no unseen ranges and `startId` = its horizon.
 * n8n saves static data only when a poll emits (and on activation / deactivation), so falling
 * back to an older saved state must be harmless: a poll that emitted nothing only moved the
 * horizon over scans that were unfinished (they come back as new) or filtered out (filtered
 * out again), so replaying from the older state emits what the lost polls would have emitted.
 */
export interface PollState {
	version: 2;
	horizon: number;
	pending: number[];
	emitted: number[];
	/** ISO time of the first activation (informative). */
	activatedAt: string;
	stuck: Record<string, StuckScan>;
	unseen: UnseenRange[];
	startId: number;
}

export interface StuckScan {
	/** Failed attempts (or looks at an unlisted status) in a row. */
	failures: number;
	/** Epoch ms before which the scan is not fetched again (nor counted again). */
	nextAt: number;
	/** ISO time of the first strike in a row. */
	since: string;
	/** The last error message (no secrets: the transport's wording). */
	lastError: string;
	/** Set when the strikes are for a status the API does not list (the last one seen). */
	status?: string;
}

/** IDs `from`…`to` (inclusive), below the horizon, not listed yet. */
export interface UnseenRange {
	from: number;
	to: number;
	/** Epoch ms when a poll first missed them. */
	since: number;
	/** Later polls that listed past them and still did not see them. */
	checks: number;
}

/** First pause after a failed GET of one scan; it doubles with each failure up to STUCK_MAX_PAUSE_MS. */
export const STUCK_FIRST_PAUSE_MS = 60_000;
export const STUCK_MAX_PAUSE_MS = 60 * 60_000;
/** Failed GETs in a row after which a scan is given up (about 4 hours with the pauses above). */
export const STUCK_MAX_FAILURES = 10;

/** Emitted IDs kept for the duplicate guard. */
export const MAX_EMITTED = 1000;
/** Unfinished scans followed at most; the oldest are dropped beyond it (with a warning). */
export const MAX_PENDING = 1000;

/** The statuses the API lists for a scan that is not done yet. */
export const WAITING_STATUSES = new Set(['uploaded', 'processing']);

export function isFinal(scan: IDataObject): boolean {
	return FINAL_STATUSES.has(String(scan.status));
}

/** A status the API does not list (e.g. `cancelled`): followed for a bound, then given up. */
export function isUnlisted(scan: IDataObject): boolean {
	return !isFinal(scan) && !WAITING_STATUSES.has(String(scan.status));
}

/** A scan ID as a number, or undefined when the record carries none usable. */
export function scanIdOf(scan: IDataObject): number | undefined {
	const id = Number(scan.id ?? scan.scan_id);
	return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** Whether a pending scan may be fetched (or counted) now: it is not pausing after a strike. */
export function isFollowDue(state: PollState, id: number, now: number): boolean {
	const stuck = state.stuck[String(id)];
	return stuck === undefined || stuck.nextAt <= now;
}

function stuckMap(value: unknown): Record<string, StuckScan> {
	const result: Record<string, StuckScan> = {};
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return result;
	for (const [key, raw] of Object.entries(value as IDataObject)) {
		const entry = raw as IDataObject;
		const failures = Number(entry?.failures);
		if (!Number.isSafeInteger(Number(key)) || !Number.isSafeInteger(failures) || failures < 1)
			continue;
		result[key] = {
			failures,
			nextAt: Number(entry.nextAt) || 0,
			since: String(entry.since ?? ''),
			lastError: String(entry.lastError ?? ''),
			...(typeof entry.status === 'string' ? { status: entry.status } : {}),
		};
	}
	return result;
}

function idList(value: unknown): number[] {
	if (!Array.isArray(value)) return [];
	return value.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0);
}

function unseenList(value: unknown, horizon: number): UnseenRange[] {
	if (!Array.isArray(value)) return [];
	const ranges: UnseenRange[] = [];
	for (const raw of value as IDataObject[]) {
		const from = Number(raw?.from);
		const to = Number(raw?.to);
		if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1 || to < from) continue;
		if (to > horizon) continue;
		ranges.push({
			from,
			to,
			since: Number(raw.since) || 0,
			checks: Math.max(0, Math.floor(Number(raw.checks) || 0)),
		});
	}
	return ranges.sort((a, b) => b.to - a.to);
}

/** The stored state (version 1 or 2), or undefined before the first activation (or after a reset). */
export function readState(staticData: IDataObject): PollState | undefined {
	const horizon = Number(staticData.horizon);
	const version = staticData.version;
	if ((version !== 1 && version !== 2) || !Number.isSafeInteger(horizon) || horizon < 0)
		return undefined;
	const startId = Number(staticData.startId);
	return {
		version: 2,
		horizon,
		pending: idList(staticData.pending),
		emitted: idList(staticData.emitted),
		activatedAt: String(staticData.activatedAt ?? ''),
		stuck: stuckMap(staticData.stuck),
		unseen: version === 2 ? unseenList(staticData.unseen, horizon) : [],
		startId:
			version === 2 && Number.isSafeInteger(startId) && startId >= 0
				? Math.min(startId, horizon)
				: horizon,
	};
}

/** Writes the state into the static data object (new arrays, so n8n notices the change). */
export function writeState(staticData: IDataObject, state: PollState): void {
	Object.assign(staticData, structuredClone(state));
}

/** What the requests of one poll found. */
export interface Observation {
	/** Latest record seen per scan ID (listing pages and single fetches). */
	scans: Map<number, IDataObject>;
	/** Highest ID in the listing; the new horizon (unless `pageIgnored`). */
	topId: number;
	/** The ID the listing was read down to (1: to its end), and every ID on it (unseen.ts). */
	listed?: { low: number; ids: Set<number> };
	/** True when the service ignored `page`: only page 1 was read, the horizon must stay. */
	pageIgnored?: boolean;
	/** Pending IDs the service no longer knows (404). */
	gone: Set<number>;
	/** Pending IDs fetched one by one this poll (they move to the back of the queue). */
	fetched: number[];
	/** Pending IDs whose own GET failed this poll, with the error message. */
	failed: Map<number, string>;
	/** IDs whose record came from GET /scans/{id}: the whole scan, whatever fields it has. */
	whole: Set<number>;
}

export interface CommitResult {
	state: PollState;
	/** Finished scans to emit, in the order they finished. */
	emit: IDataObject[];
	/** Pending IDs dropped because more than MAX_PENDING were followed. */
	dropped: number[];
	/** Pending scans given up after STUCK_MAX_FAILURES strikes in a row. */
	givenUp: Array<{ id: number } & StuckScan>;
	/** Followed scans seen in a status the API does not list for the first time. */
	strange: Array<{ id: number; status: string }>;
	/** Scans found unfinished below the window of late scans, not followed before: followed now. */
	resurfaced: Array<{ id: number; status: string }>;
	/** Scans listed late (in an unseen range) this poll. */
	late: number[];
}

/**
 * The state after the first activation: nothing before it is emitted; the horizon is the
 * newest scan, and every unfinished scan the activation's look found is followed.
 */
export function initialState(scans: Iterable<IDataObject>, topId: number, now: Date): PollState {
	const pending = [...scans]
		.filter((scan) => !isFinal(scan))
		.map(scanIdOf)
		.filter((id): id is number => id !== undefined);
	return {
		version: 2,
		horizon: topId,
		pending: [...new Set(pending)].sort((a, b) => a - b).slice(-MAX_PENDING),
		emitted: [],
		activatedAt: now.toISOString(),
		stuck: {},
		unseen: [],
		startId: topId,
	};
}
