/**
 * Unit tests of the poll trigger's window for late scans (unseen.ts), how far a poll reads
 * (follow.ts) and the commit rules issue 25 added (late, resurfaced, unlisted statuses, a server
 * ignoring `page`), importing the sources so that mutation testing sees them. Pure functions.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	commit,
	heldBack,
	unlistedStatusError,
} from '../../nodes/DocumentScanningPollTrigger/commit';
import { FOLLOW_MAX_PAGES, followPlan } from '../../nodes/DocumentScanningPollTrigger/follow';
import type { Observation, PollState } from '../../nodes/DocumentScanningPollTrigger/state';
import { isUnlisted, readState } from '../../nodes/DocumentScanningPollTrigger/state';
import { LATE_MS } from '../../nodes/shared/transport/listingPages';
import {
	inUnseen,
	LATE_CHECKS,
	lowestUnseen,
	MAX_UNSEEN,
	updateUnseen,
} from '../../nodes/DocumentScanningPollTrigger/unseen';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const range = (from: number, to: number, since = NOW, checks = 0) => ({ from, to, since, checks });
const listed = (low: number, ...ids: number[]) => ({ low, ids: new Set(ids) });

describe('unseen ranges', () => {
	test('the window is 2 later polls and 10 minutes, 200 ranges', () => {
		expect([LATE_CHECKS, LATE_MS, MAX_UNSEEN]).toEqual([2, 600_000, 200]);
	});

	test('IDs between the lowest and highest listed that were not seen become ranges', () => {
		expect(updateUnseen([], listed(3, 3, 4, 7, 9), 2, 9, NOW)).toEqual([range(8, 8), range(5, 6)]);
	});

	test('only above the old horizon, only when the horizon moves, and nothing below what was read', () => {
		expect(updateUnseen([], listed(3, 3, 9), 6, 9, NOW)).toEqual([range(7, 8)]);
		expect(updateUnseen([], listed(3, 3, 9), 9, 9, NOW)).toEqual([]);
		expect(updateUnseen([], undefined, 2, 9, NOW)).toEqual([]);
	});

	test('a listed ID leaves its range; what was read past counts a check; the rest stays', () => {
		const before = [range(20, 24, NOW - 5), range(10, 12, NOW - 5)];
		// Read down to 11: 22 seen; 20-21 and 23-24 checked; 11-12 checked, 10 not reached.
		expect(updateUnseen(before, listed(11, 22, 30), 30, 30, NOW)).toEqual([
			range(23, 24, NOW - 5, 1),
			range(20, 21, NOW - 5, 1),
			range(11, 12, NOW - 5, 1),
			range(10, 10, NOW - 5, 0),
		]);
	});

	test('a range goes once checked twice and older than the window; the newest 200 are kept', () => {
		expect(updateUnseen([range(5, 5, NOW - LATE_MS, 1)], listed(1, 9), 9, 9, NOW)).toEqual([]);
		expect(updateUnseen([range(5, 5, NOW - LATE_MS + 1, 1)], listed(1, 9), 9, 9, NOW)).toHaveLength(
			1,
		);
		expect(updateUnseen([range(5, 5, NOW - LATE_MS, 0)], listed(1, 9), 9, 9, NOW)).toHaveLength(1);
		const many = Array.from({ length: 250 }, (_, i) => range(2 * i + 1, 2 * i + 1));
		const kept = updateUnseen(many, undefined, 600, 600, NOW);
		expect(kept).toHaveLength(MAX_UNSEEN);
		expect(kept[0].from).toBe(499);
	});

	test('inUnseen and lowestUnseen', () => {
		const ranges = [range(8, 9), range(3, 5)];
		expect([2, 3, 5, 6, 8, 9, 10].map((id) => inUnseen(ranges, id))).toEqual([
			false,
			true,
			true,
			false,
			true,
			true,
			false,
		]);
		expect(lowestUnseen(ranges)).toBe(3);
		expect(lowestUnseen([])).toBeUndefined();
	});

	test('a version 2 state keeps valid ranges up to the horizon, drops the others', () => {
		const state = readState({
			version: 2,
			horizon: 20,
			startId: 30,
			unseen: [
				{ from: 3, to: 4, since: 7, checks: 1 },
				{ from: 18, to: 25 },
				{ from: 5, to: 4 },
				{ from: 'x', to: 9 },
				null,
				{ from: 10, to: 12, checks: -3 },
			],
		} as unknown as IDataObject);
		expect(state?.unseen).toEqual([range(10, 12, 0, 0), range(3, 4, 7, 1)]);
		expect(state?.startId).toBe(20);
	});
});

describe('followPlan (how far a poll reads)', () => {
	const page = (from: number, to: number) =>
		Array.from({ length: from - to + 1 }, (_, i) => ({ id: from - i }));

	test('goes on until a page reaches the horizon and the lowest unseen ID', () => {
		const plan = followPlan({ horizon: 80, unseenFloor: 60, pending: [], singles: 10 });
		expect(plan.stopAfter(page(100, 76))).toBe(false);
		expect(plan.stopAfter(page(75, 51))).toBe(true);
	});

	test('then on while more followed scans lie below than single fetches allow, or a batch goes on', () => {
		const pending = Array.from({ length: 60 }, (_, i) => 60 - i);
		const plan = followPlan({ horizon: 60, pending, singles: 10 });
		expect(plan.stopAfter(page(60, 36))).toBe(false); // 35 below
		expect(plan.stopAfter(page(35, 11))).toBe(false); // 10 below, and this page held followed ones
		expect(plan.stopAfter(page(10, 1))).toBe(true); // none below
	});

	test('one followed scan deep below: a single fetch, not the pages down to it', () => {
		const plan = followPlan({ horizon: 500, pending: [3, 499], singles: 10 });
		expect(plan.stopAfter(page(500, 476))).toBe(true);
	});

	test(`at most ${FOLLOW_MAX_PAGES} pages past the horizon`, () => {
		const pending = Array.from({ length: 2000 }, (_, i) => 2000 - i);
		const plan = followPlan({ horizon: 2000, pending, singles: 10 });
		const results = [];
		for (let i = 0; i <= FOLLOW_MAX_PAGES; i++)
			results.push(plan.stopAfter(page(2000 - 25 * i, 1976 - 25 * i)));
		expect(results.slice(0, FOLLOW_MAX_PAGES)).toEqual(Array(FOLLOW_MAX_PAGES).fill(false));
		expect(results[FOLLOW_MAX_PAGES]).toBe(true);
	});
});

describe('commit: what issue 25 added', () => {
	const state = (extra: Partial<PollState> = {}): PollState => ({
		version: 2,
		horizon: 10,
		pending: [],
		emitted: [],
		activatedAt: '',
		stuck: {},
		unseen: [],
		startId: 5,
		...extra,
	});
	const observe = (scans: IDataObject[], extra: Partial<Observation> = {}): Observation => ({
		scans: new Map(scans.map((scan) => [Number(scan.id), scan])),
		topId: Math.max(0, ...scans.map((scan) => Number(scan.id))),
		gone: new Set(),
		fetched: [],
		failed: new Map(),
		whole: new Set(scans.map((scan) => Number(scan.id))),
		...extra,
	});
	const all = () => true;

	test('a scan listed late (in an unseen range) is new: emitted once, its range gone', () => {
		const result = commit(
			state({ unseen: [range(7, 7)] }),
			observe(
				[
					{ id: 7, status: 'completed' },
					{ id: 12, status: 'completed' },
				],
				{
					listed: listed(7, 7, 12),
				},
			),
			all,
			NOW,
		);
		expect(result.emit.map((scan) => scan.id)).toEqual([7, 12]);
		expect(result.late).toEqual([7]);
		expect(result.state.unseen).toEqual([range(11, 11)]);
		const again = commit(result.state, observe([{ id: 7, status: 'completed' }]), all, NOW);
		expect(again.emit).toEqual([]);
	});

	test('a finished scan listed without every field: one the settings want waits for its read; one they leave out is settled', () => {
		const brief = observe(
			[
				{ id: 11, status: 'completed' },
				{ id: 12, status: 'failed' },
			],
			{ whole: new Set() },
		);
		const failedOnly = (scan: IDataObject) => scan.status === 'failed';
		const result = commit(state(), brief, failedOnly, NOW);
		expect(result.emit).toEqual([]);
		expect(result.state.pending).toEqual([12]);
	});

	test('an unfinished scan below the horizon, not followed, above the first horizon: resurfaced and followed', () => {
		const result = commit(
			state(),
			observe([
				{ id: 8, status: 'processing' },
				{ id: 4, status: 'uploaded' },
				{ id: 9, status: 'completed' },
			]),
			all,
			NOW,
		);
		expect(result.resurfaced).toEqual([{ id: 8, status: 'processing' }]);
		expect(result.state.pending).toEqual([8]);
		expect(result.emit).toEqual([]);
	});

	test('a status the API does not list: a strike when due, with the status; given up at the bound', () => {
		expect(isUnlisted({ status: 'cancelled' })).toBe(true);
		expect(isUnlisted({ status: 'processing' })).toBe(false);
		expect(isUnlisted({ status: 'failed' })).toBe(false);
		const first = commit(
			state({ pending: [8] }),
			observe([{ id: 8, status: 'cancelled' }]),
			all,
			NOW,
		);
		expect(first.state.stuck['8']).toEqual({
			failures: 1,
			nextAt: NOW + 60_000,
			since: new Date(NOW).toISOString(),
			lastError: unlistedStatusError('cancelled'),
			status: 'cancelled',
		});
		// Not due: kept as it is.
		const early = commit(first.state, observe([{ id: 8, status: 'cancelled' }]), all, NOW + 1);
		expect(early.state.stuck['8'].failures).toBe(1);
		const stuck = { '8': { ...first.state.stuck['8'], failures: 9, nextAt: 0 } };
		const last = commit(
			state({ pending: [8], stuck }),
			observe([{ id: 8, status: 'x' }]),
			all,
			NOW,
		);
		expect(last.givenUp).toEqual([expect.objectContaining({ id: 8, failures: 10, status: 'x' })]);
		expect(last.state.pending).toEqual([]);
	});

	test('a server that ignored page holds the poll back only when page 1 did not reach the horizon', () => {
		const ignored = { pageIgnored: true, topId: 40 };
		expect(heldBack(10, observe([], { ...ignored, listed: listed(16, 16, 40) }))).toBe(true);
		expect(heldBack(10, observe([], { ...ignored, listed: listed(11, 11, 40) }))).toBe(false);
		expect(heldBack(10, observe([], { topId: 40, listed: listed(16, 16, 40) }))).toBe(false);
	});
});
