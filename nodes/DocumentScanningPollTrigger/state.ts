import type { IDataObject } from 'n8n-workflow';

import { FINAL_STATUSES } from '../shared/scans/status';

/**
 * The poll trigger's memory, kept in the workflow's static data (node scope) and nowhere
 * else: n8n may run a poll in another process than the previous one.
 *
 * - `horizon`: the highest scan ID a successful poll has seen. Every scan with an ID up to
 *   it was seen at least once (or existed before the first activation).
 * - `pending`: IDs up to the horizon that were seen unfinished (uploaded, processing).
 * - `emitted`: the most recently emitted IDs, a bounded guard against emitting twice.
 * - `stuck`: pending IDs whose own GET failed: failures in a row, when to try again (back-off),
 *   and since when. After STUCK_MAX_FAILURES the scan is given up (the caller logs it).
 *
 * n8n saves static data only when a poll emits (and on activation / deactivation). The
 * state is built so that falling back to an older saved state is harmless: a poll that
 * emitted nothing only moved the horizon over scans that were unfinished (they come back
 * as new) or filtered out (filtered out again), so replaying from the older state emits
 * exactly what the lost polls would have emitted later.
 */
export interface PollState {
	version: 1;
	horizon: number;
	pending: number[];
	emitted: number[];
	/** ISO time of the first activation (informative). */
	activatedAt: string;
	/** Pending scans whose own GET failed, by ID. */
	stuck: Record<string, StuckScan>;
}

export interface StuckScan {
	/** Failed attempts in a row. */
	failures: number;
	/** Epoch ms before which the scan is not fetched again. */
	nextAt: number;
	/** ISO time of the first failure in a row. */
	since: string;
	/** The last error message (no secrets: the transport's wording). */
	lastError: string;
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

export function isFinal(scan: IDataObject): boolean {
	return FINAL_STATUSES.has(String(scan.status));
}

/** A scan ID as a number, or undefined when the record carries none usable. */
export function scanIdOf(scan: IDataObject): number | undefined {
	const id = Number(scan.id ?? scan.scan_id);
	return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** Whether a pending scan may be fetched on its own now (it is not pausing after a failure). */
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
		};
	}
	return result;
}

function idList(value: unknown): number[] {
	if (!Array.isArray(value)) return [];
	return value.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0);
}

/** The stored state, or undefined before the first activation (or after static data was reset). */
export function readState(staticData: IDataObject): PollState | undefined {
	const horizon = Number(staticData.horizon);
	if (staticData.version !== 1 || !Number.isSafeInteger(horizon) || horizon < 0) return undefined;
	return {
		version: 1,
		horizon,
		pending: idList(staticData.pending),
		emitted: idList(staticData.emitted),
		activatedAt: String(staticData.activatedAt ?? ''),
		stuck: stuckMap(staticData.stuck),
	};
}

/** Writes the state into the static data object (new arrays, so n8n notices the change). */
export function writeState(staticData: IDataObject, state: PollState): void {
	staticData.version = state.version;
	staticData.horizon = state.horizon;
	staticData.pending = [...state.pending];
	staticData.emitted = [...state.emitted];
	staticData.activatedAt = state.activatedAt;
	staticData.stuck = structuredClone(state.stuck);
}

/** What the requests of one poll found. */
export interface Observation {
	/** Latest record seen per scan ID (listing pages and single fetches). */
	scans: Map<number, IDataObject>;
	/** Highest ID in the listing; the new horizon. */
	topId: number;
	/** Pending IDs the service no longer knows (404). */
	gone: Set<number>;
	/** Pending IDs fetched one by one this poll (they move to the back of the queue). */
	fetched: number[];
	/** Pending IDs whose own GET failed this poll, with the error message. */
	failed: Map<number, string>;
}

export interface CommitResult {
	state: PollState;
	/** Finished scans to emit, in the order they finished. */
	emit: IDataObject[];
	/** Pending IDs dropped because more than MAX_PENDING were followed. */
	dropped: number[];
	/** Pending scans given up after STUCK_MAX_FAILURES failed GETs in a row. */
	givenUp: Array<{ id: number } & StuckScan>;
}

function byCompletion(a: IDataObject, b: IDataObject): number {
	// Stryker disable next-line StringLiteral: any text that is not a date parses to NaN, as '' does.
	const ta = Date.parse(String(a.updated_at ?? ''));
	// Stryker disable next-line StringLiteral: any text that is not a date parses to NaN, as '' does.
	const tb = Date.parse(String(b.updated_at ?? ''));
	if (Number.isFinite(ta) && Number.isFinite(tb) && ta !== tb) return ta - tb;
	return (scanIdOf(a) ?? 0) - (scanIdOf(b) ?? 0);
}

/**
 * Applies one poll's observation to the state as it is *now* (not as it was when the poll
 * started: with two overlapping polls, the one finishing later sees the other's emissions).
 * `accept` tells whether a finished scan passes the node's event and option filters; a
 * filtered-out scan is settled like an emitted one, but not recorded as emitted.
 */
export function commit(
	current: PollState,
	observation: Observation,
	accept: (scan: IDataObject) => boolean,
	now: number = Date.now(),
): CommitResult {
	const pending = new Set(current.pending);
	const emitted = new Set(current.emitted);
	const emit: IDataObject[] = [];

	const ids = [...observation.scans.keys()].sort((a, b) => a - b);
	for (const id of ids) {
		const scan = observation.scans.get(id)!;
		if (id <= current.horizon && !pending.has(id)) continue;
		if (!isFinal(scan)) {
			pending.add(id);
			continue;
		}
		pending.delete(id);
		if (emitted.has(id) || !accept(scan)) continue;
		emit.push(scan);
		emitted.add(id);
	}
	for (const id of observation.gone) pending.delete(id);

	// A failed GET stays with its scan: back-off, then give up after STUCK_MAX_FAILURES.
	const stuck: Record<string, StuckScan> = {};
	const givenUp: CommitResult['givenUp'] = [];
	for (const [key, entry] of Object.entries(current.stuck)) {
		if (pending.has(Number(key)) && !observation.scans.has(Number(key))) stuck[key] = entry;
	}
	for (const [id, message] of observation.failed) {
		if (!pending.has(id)) continue;
		const before = stuck[String(id)];
		const failures = (before?.failures ?? 0) + 1;
		const entry: StuckScan = {
			failures,
			nextAt: now + Math.min(STUCK_FIRST_PAUSE_MS * 2 ** (failures - 1), STUCK_MAX_PAUSE_MS),
			since: before?.since ?? new Date(now).toISOString(),
			lastError: message,
		};
		if (failures >= STUCK_MAX_FAILURES) {
			pending.delete(id);
			delete stuck[String(id)];
			givenUp.push({ id, ...entry });
		} else {
			stuck[String(id)] = entry;
		}
	}

	// Single fetches go to the back, so the next poll checks the ones not checked now.
	const fetched = new Set(observation.fetched);
	let pendingList = [
		...[...pending].filter((id) => !fetched.has(id)).sort((a, b) => a - b),
		...observation.fetched.filter((id) => pending.has(id)),
	];
	let dropped: number[] = [];
	// Stryker disable next-line EqualityOperator: at exactly MAX_PENDING the slice below is empty, so nothing is dropped either way.
	if (pendingList.length > MAX_PENDING) {
		const oldest = [...pendingList]
			.sort((a, b) => a - b)
			.slice(0, pendingList.length - MAX_PENDING);
		const drop = new Set(oldest);
		dropped = oldest;
		pendingList = pendingList.filter((id) => !drop.has(id));
	}

	const emittedList = [...current.emitted, ...emit.map((scan) => scanIdOf(scan)!)];
	return {
		state: {
			version: 1,
			horizon: Math.max(current.horizon, observation.topId),
			pending: pendingList,
			emitted: [...new Set(emittedList)].slice(-MAX_EMITTED),
			activatedAt: current.activatedAt,
			stuck: Object.fromEntries(
				Object.entries(stuck).filter(([key]) => pendingList.includes(Number(key))),
			),
		},
		emit: emit.sort(byCompletion),
		dropped,
		givenUp,
	};
}

/**
 * The state after the first activation: nothing before it is emitted; the horizon is the
 * newest scan, and every unfinished scan the activation's look found is followed.
 */
export function initialState(scans: Iterable<IDataObject>, topId: number, now: Date): PollState {
	const pending: number[] = [];
	for (const scan of scans) {
		const id = scanIdOf(scan);
		if (id !== undefined && !isFinal(scan)) pending.push(id);
	}
	return {
		version: 1,
		horizon: topId,
		pending: [...new Set(pending)].sort((a, b) => a - b).slice(-MAX_PENDING),
		emitted: [],
		activatedAt: now.toISOString(),
		stuck: {},
	};
}
