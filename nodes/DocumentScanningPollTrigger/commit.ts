import type { IDataObject } from 'n8n-workflow';

import type { CommitResult, Observation, PollState, StuckScan } from './state';
import {
	isFinal,
	isFollowDue,
	isUnlisted,
	MAX_EMITTED,
	MAX_PENDING,
	scanIdOf,
	STUCK_FIRST_PAUSE_MS,
	STUCK_MAX_FAILURES,
	STUCK_MAX_PAUSE_MS,
	WAITING_STATUSES,
} from './state';
import { isFullScan } from '../shared/scans/status';
import { inUnseen, updateUnseen } from './unseen';

/** When a scan reached its final state (`updated_at`), or NaN without a readable time. */
function finishedAt(scan: IDataObject): number {
	return typeof scan.updated_at === 'string' ? Date.parse(scan.updated_at) : NaN;
}

function byCompletion(a: IDataObject, b: IDataObject): number {
	const ta = finishedAt(a);
	const tb = finishedAt(b);
	if (Number.isFinite(ta) && Number.isFinite(tb) && ta !== tb) return ta - tb;
	return (scanIdOf(a) ?? 0) - (scanIdOf(b) ?? 0);
}

/**
 * A service that ignored `page` showed page 1 only. When that did not reach down to the horizon,
 * scans between them were not seen: the poll fails naming them (poll.ts).
 */
export function heldBack(horizon: number, observation: Observation): boolean {
	if (!observation.pageIgnored) return false;
	return (observation.listed?.low ?? Infinity) > horizon + 1;
}

/** The words of a strike for a status the API does not list. */
export function unlistedStatusError(status: string): string {
	return `the service shows status "${status}", which is not one the API lists`;
}

/**
 * Applies one poll's observation to the state as it is *now* (an overlapping poll may have
 * committed meanwhile). `accept` tells whether a finished scan passes the node's filters; a
 * filtered-out scan is settled like an emitted one, but not recorded as emitted. A scan is new
 * when its ID is above the horizon, in an unseen range (listed late), or pending. One below
 * the horizon that is none of these was settled before, except an unfinished one above the
 * first activation's horizon: it was missed, and is followed from now on (`resurfaced`); never
 * emitted (statuses only move forward), following it cannot emit it twice.
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
	const resurfaced: CommitResult['resurfaced'] = [];
	const late: number[] = [];
	const unlisted = new Map<number, string>();

	const ids = [...observation.scans.keys()].sort((a, b) => a - b);
	for (const id of ids) {
		const scan = observation.scans.get(id)!;
		if (id <= current.horizon && !pending.has(id)) {
			if (inUnseen(current.unseen, id)) {
				late.push(id);
			} else {
				const status = String(scan.status);
				if (id > current.startId && WAITING_STATUSES.has(status)) resurfaced.push({ id, status });
				else continue;
			}
		}
		// A finished scan is emitted with its data: a brief listed record the filters take waits
		// for its GET (listing.ts); one they leave out is settled from the record (issue 31 §4).
		if (!isFinal(scan) || (!isFullScan(scan) && !observation.whole.has(id) && accept(scan))) {
			pending.add(id);
			if (isUnlisted(scan) && isFollowDue(current, id, now)) unlisted.set(id, String(scan.status));
			continue;
		}
		pending.delete(id);
		if (emitted.has(id) || !accept(scan)) continue;
		emit.push(scan);
		emitted.add(id);
	}
	for (const id of observation.gone) pending.delete(id);

	// A failed GET or an unlisted status stays with its scan: back-off, then give up.
	const stuck: Record<string, StuckScan> = {};
	const givenUp: CommitResult['givenUp'] = [];
	const strange: CommitResult['strange'] = [];
	for (const [key, entry] of Object.entries(current.stuck)) {
		const seen = observation.scans.get(Number(key));
		// Kept while the scan is not listed, in a status the API does not list, or waits for its read by ID.
		const unread = seen !== undefined && isFinal(seen) && !isFullScan(seen);
		if (pending.has(Number(key)) && (seen === undefined || isUnlisted(seen) || unread))
			stuck[key] = entry;
	}
	const strike = (id: number, message: string, status?: string) => {
		if (!pending.has(id)) return;
		const before = stuck[String(id)];
		const failures = (before?.failures ?? 0) + 1;
		const entry: StuckScan = {
			failures,
			nextAt: now + Math.min(STUCK_FIRST_PAUSE_MS * 2 ** (failures - 1), STUCK_MAX_PAUSE_MS),
			since: before?.since ?? new Date(now).toISOString(),
			lastError: message,
			...(status === undefined ? {} : { status }),
		};
		if (status !== undefined && failures === 1) strange.push({ id, status });
		if (failures >= STUCK_MAX_FAILURES) {
			pending.delete(id);
			delete stuck[String(id)];
			givenUp.push({ id, ...entry });
		} else {
			stuck[String(id)] = entry;
		}
	};
	for (const [id, message] of observation.failed) strike(id, message);
	for (const [id, status] of unlisted) strike(id, unlistedStatusError(status), status);

	// Single fetches go to the back, so the next poll checks the ones not checked now.
	const fetched = new Set(observation.fetched);
	let pendingList = [
		...[...pending].filter((id) => !fetched.has(id)).sort((a, b) => a - b),
		...observation.fetched.filter((id) => pending.has(id)),
	];
	// Beyond MAX_PENDING the oldest unfinished are dropped (none when within it); finished scans
	// waiting for their read by ID are kept: they start the workflow, 25 a poll.
	const dropped = pendingList
		.filter((id) => !isFinal(observation.scans.get(id) ?? {}))
		.sort((a, b) => a - b)
		.slice(0, Math.max(0, pendingList.length - MAX_PENDING));
	const drop = new Set(dropped);
	pendingList = pendingList.filter((id) => !drop.has(id));

	const horizon = Math.max(current.horizon, observation.topId);
	const emitIds = emit.map((scan) => scanIdOf(scan)!);
	return {
		state: {
			version: 2,
			horizon,
			pending: pendingList,
			emitted: [...new Set([...current.emitted, ...emitIds])].slice(-MAX_EMITTED),
			activatedAt: current.activatedAt,
			stuck: Object.fromEntries(
				Object.entries(stuck).filter(([key]) => pendingList.includes(Number(key))),
			),
			unseen: updateUnseen(current.unseen, observation.listed, current.horizon, horizon, now),
			startId: current.startId,
		},
		emit: emit.sort(byCompletion),
		dropped,
		givenUp,
		strange,
		resurfaced,
		late,
	};
}
