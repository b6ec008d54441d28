/**
 * Unit tests of the poll trigger's state (commit, back-off, give-up, reading and writing static
 * data), importing the sources so that mutation testing sees them. Pure functions: no fakes.
 */
import type { IDataObject } from 'n8n-workflow';

import { commit } from '../../nodes/DocumentScanningPollTrigger/commit';
import type { Observation, PollState } from '../../nodes/DocumentScanningPollTrigger/state';
import {
	initialState,
	isFinal,
	isFollowDue,
	MAX_EMITTED,
	MAX_PENDING,
	readState,
	scanIdOf,
	STUCK_FIRST_PAUSE_MS,
	STUCK_MAX_FAILURES,
	STUCK_MAX_PAUSE_MS,
	writeState,
} from '../../nodes/DocumentScanningPollTrigger/state';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');

const state = (extra: Partial<PollState> = {}): PollState => ({
	version: 2,
	horizon: 10,
	pending: [],
	emitted: [],
	activatedAt: '2025-12-31T00:00:00.000Z',
	stuck: {},
	unseen: [],
	startId: 10,
	...extra,
});

const observe = (
	scans: IDataObject[],
	extra: Partial<Omit<Observation, 'scans'>> = {},
): Observation => ({
	scans: new Map(scans.map((scan) => [Number(scan.id), scan])),
	topId: Math.max(0, ...scans.map((scan) => Number(scan.id))),
	gone: new Set(),
	fetched: [],
	failed: new Map(),
	whole: new Set(scans.map((scan) => Number(scan.id))),
	...extra,
});

const done = (id: number, updated?: string): IDataObject => ({
	id,
	status: 'completed',
	...(updated ? { updated_at: updated } : {}),
});
const busy = (id: number): IDataObject => ({ id, status: 'processing' });
const all = () => true;

describe('constants', () => {
	test('back-off and bounds are the documented values', () => {
		expect(STUCK_FIRST_PAUSE_MS).toBe(60_000);
		expect(STUCK_MAX_PAUSE_MS).toBe(3_600_000);
		expect(STUCK_MAX_FAILURES).toBe(10);
		expect(MAX_EMITTED).toBe(1000);
		expect(MAX_PENDING).toBe(1000);
	});
});

describe('isFinal / scanIdOf', () => {
	test.each([
		['completed', true],
		['failed', true],
		['validation_failed', true],
		['processing', false],
		['uploaded', false],
		[undefined, false],
	])('status %s final: %s', (status, final) => {
		expect(isFinal({ status } as IDataObject)).toBe(final);
	});

	test.each([
		[{ id: 5 }, 5],
		[{ id: '7' }, 7],
		[{ scan_id: 9 }, 9],
		[{ id: 3, scan_id: 9 }, 3],
		[{ id: 0 }, undefined],
		[{ id: -2 }, undefined],
		[{ id: 1.5 }, undefined],
		[{ id: 'x' }, undefined],
		[{}, undefined],
		[{ id: 2 ** 53 }, undefined],
	])('scanIdOf(%j) = %s', (scan, id) => {
		expect(scanIdOf(scan as IDataObject)).toBe(id);
	});
});

describe('isFollowDue', () => {
	test('due when not stuck, or when the pause has ended (inclusive)', () => {
		const s = state({
			stuck: { '4': { failures: 1, nextAt: NOW, since: '', lastError: '' } },
		});
		expect(isFollowDue(s, 3, NOW - 1)).toBe(true);
		expect(isFollowDue(s, 4, NOW - 1)).toBe(false);
		expect(isFollowDue(s, 4, NOW)).toBe(true);
		expect(isFollowDue(s, 4, NOW + 1)).toBe(true);
	});
});

describe('readState / writeState', () => {
	test('undefined before the first activation or with a broken horizon / version', () => {
		expect(readState({})).toBeUndefined();
		expect(readState({ version: 3, horizon: 3 })).toBeUndefined();
		expect(readState({ version: 1, horizon: -1 })).toBeUndefined();
		expect(readState({ version: 1, horizon: 1.5 })).toBeUndefined();
		expect(readState({ version: 1, horizon: 'x' })).toBeUndefined();
		expect(readState({ version: 1 })).toBeUndefined();
	});

	test('reads a horizon of 0 and cleans odd lists and stuck entries', () => {
		const read = readState({
			version: 1,
			horizon: 0,
			pending: [3, '4', 0, -1, 'x', 2.5, null],
			emitted: 'nope',
			stuck: {
				'3': { failures: 2, nextAt: 99, since: 's', lastError: 'e' },
				'4': { failures: '1' },
				x: { failures: 1 },
				'5': { failures: 0 },
				'6': { failures: 1.5 },
				'7': null,
			},
		} as unknown as IDataObject);
		expect(read).toEqual({
			version: 2,
			horizon: 0,
			pending: [3, 4],
			emitted: [],
			activatedAt: '',
			stuck: {
				'3': { failures: 2, nextAt: 99, since: 's', lastError: 'e' },
				'4': { failures: 1, nextAt: 0, since: '', lastError: '' },
			},
			unseen: [],
			startId: 0,
		});
	});

	test.each([[null], [[{ failures: 1 }]], ['x']])('stuck %j reads as none', (stuck) => {
		expect(readState({ version: 1, horizon: 1, stuck } as IDataObject)?.stuck).toEqual({});
	});

	test('write then read gives the same state, with copies n8n notices', () => {
		const original = state({
			pending: [11, 12],
			emitted: [9],
			stuck: { '12': { failures: 1, nextAt: 5, since: 'a', lastError: 'b' } },
		});
		const data: IDataObject = {};
		writeState(data, original);
		expect(readState(data)).toEqual(original);
		expect(data.pending).not.toBe(original.pending);
		expect(data.emitted).not.toBe(original.emitted);
		expect(data.stuck).not.toBe(original.stuck);
		expect(data.version).toBe(2);
		expect(data.activatedAt).toBe(original.activatedAt);
	});
});

describe('initialState', () => {
	test('follows unfinished scans (sorted, unique), emits nothing, horizon = top', () => {
		const s = initialState(
			[busy(8), done(9), busy(3), busy(8), { status: 'processing' }, { id: 0 }],
			9,
			new Date(NOW),
		);
		expect(s.pending).toStrictEqual([3, 8]);
		expect(s).toEqual({
			version: 2,
			horizon: 9,
			pending: [3, 8],
			emitted: [],
			activatedAt: new Date(NOW).toISOString(),
			stuck: {},
			unseen: [],
			startId: 9,
		});
	});

	test('keeps the newest MAX_PENDING unfinished scans', () => {
		const scans = Array.from({ length: MAX_PENDING + 5 }, (_, i) => busy(i + 1));
		const s = initialState(scans, MAX_PENDING + 5, new Date(NOW));
		expect(s.pending).toHaveLength(MAX_PENDING);
		expect(s.pending[0]).toBe(6);
		expect(s.pending.at(-1)).toBe(MAX_PENDING + 5);
	});
});

describe('commit', () => {
	test('a finished scan listed without every field and not read by ID is followed, not emitted; read by ID, it is emitted', () => {
		const brief = commit(state(), observe([done(12)], { whole: new Set() }), all, NOW);
		expect(brief.emit).toEqual([]);
		expect(brief.state.pending).toEqual([12]);
		const read = commit(brief.state, observe([done(12)]), all, NOW);
		expect(read.emit.map((scan) => scan.id)).toEqual([12]);
		expect(read.state.pending).toEqual([]);
	});

	test('emits new finished scans, follows unfinished ones, skips old ones, moves the horizon', () => {
		const result = commit(state(), observe([done(12), busy(11), done(10), done(13)]), all, NOW);
		expect(result.emit.map((s) => s.id)).toEqual([12, 13]);
		expect(result.state).toEqual({
			version: 2,
			horizon: 13,
			pending: [11],
			emitted: [12, 13],
			activatedAt: '2025-12-31T00:00:00.000Z',
			stuck: {},
			unseen: [],
			startId: 10,
		});
		expect(result.dropped).toEqual([]);
		expect(result.givenUp).toEqual([]);
	});

	test('emitted IDs are recorded in ID order, whatever order the observation holds them in', () => {
		const result = commit(state(), observe([done(13), busy(15), done(12), busy(14)]), all, NOW);
		expect(result.state.emitted).toStrictEqual([12, 13]);
		expect(result.state.pending).toStrictEqual([14, 15]);
	});

	test('followed scans are kept in ID order (a stored state may hold them in any order)', () => {
		const result = commit(state({ pending: [5, 3, 4] }), observe([], { topId: 0 }), all, NOW);
		expect(result.state.pending).toStrictEqual([3, 4, 5]);
	});

	test('the horizon never moves back', () => {
		expect(commit(state({ horizon: 20 }), observe([done(5)]), all, NOW).state.horizon).toBe(20);
	});

	test('a pending scan at or below the horizon is emitted when it finishes', () => {
		const result = commit(state({ pending: [4, 10] }), observe([done(4), done(10)]), all, NOW);
		expect(result.emit.map((s) => s.id)).toEqual([4, 10]);
		expect(result.state.pending).toEqual([]);
	});

	test('a scan already emitted is not emitted again; a filtered-out scan is settled, not recorded', () => {
		const result = commit(
			state({ pending: [4], emitted: [12] }),
			observe([done(12), done(4), done(13)]),
			(scan) => scan.id !== 13,
			NOW,
		);
		expect(result.emit.map((s) => s.id)).toEqual([4]);
		expect(result.state.pending).toEqual([]);
		expect(result.state.emitted).toEqual([12, 4]);
	});

	test('emits in the order the scans finished, then by ID', () => {
		const result = commit(
			state(),
			observe([
				done(11, '2026-01-01T00:00:03Z'),
				done(12, '2026-01-01T00:00:01Z'),
				done(13, '2026-01-01T00:00:02Z'),
				done(14, '2026-01-01T00:00:02Z'),
				done(15),
			]),
			all,
			NOW,
		);
		// 15 has no time: ordered by ID against the others.
		expect(result.emit.map((s) => s.id)).toEqual([12, 13, 14, 11, 15]);
		const byId = commit(state(), observe([done(16), done(12), done(14)]), all, NOW);
		expect(byId.emit.map((s) => s.id)).toEqual([12, 14, 16]);
	});

	test('gone scans stop being followed', () => {
		const result = commit(
			state({ pending: [3, 4] }),
			observe([], { gone: new Set([3]), topId: 0 }),
			all,
			NOW,
		);
		expect(result.state.pending).toEqual([4]);
	});

	test('scans fetched one by one go to the back of the queue, in fetch order', () => {
		const result = commit(
			state({ pending: [1, 2, 3, 4, 5] }),
			observe([busy(4), busy(2)], { fetched: [4, 2, 9], topId: 0 }),
			all,
			NOW,
		);
		expect(result.state.pending).toEqual([1, 3, 5, 4, 2]);
	});

	test('a failed GET backs off, doubling, and keeps the first failure time', () => {
		let s = state({ pending: [5] });
		const pauses: number[] = [];
		for (let i = 1; i < STUCK_MAX_FAILURES; i++) {
			const now = NOW + i * 1000;
			const result = commit(
				s,
				observe([], { failed: new Map([[5, `boom ${i}`]]), topId: 0 }),
				all,
				now,
			);
			const entry = result.state.stuck['5'];
			expect(entry.failures).toBe(i);
			expect(entry.lastError).toBe(`boom ${i}`);
			expect(entry.since).toBe(new Date(NOW + 1000).toISOString());
			pauses.push(entry.nextAt - now);
			expect(result.state.pending).toEqual([5]);
			expect(result.givenUp).toEqual([]);
			s = result.state;
		}
		expect(pauses).toEqual([
			60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000,
		]);
		// The tenth failure in a row gives the scan up.
		const last = commit(s, observe([], { failed: new Map([[5, 'last']]), topId: 0 }), all, NOW);
		expect(last.state.pending).toEqual([]);
		expect(last.state.stuck).toEqual({});
		expect(last.givenUp).toEqual([
			{
				id: 5,
				failures: STUCK_MAX_FAILURES,
				nextAt: NOW + STUCK_MAX_PAUSE_MS,
				since: new Date(NOW + 1000).toISOString(),
				lastError: 'last',
			},
		]);
	});

	test('a stuck entry stays while the scan is pending and unseen, and goes once it is seen', () => {
		const entry = { failures: 2, nextAt: NOW + 5, since: 'x', lastError: 'e' };
		const s = state({ pending: [5, 6], stuck: { '5': entry, '6': entry, '7': entry } });
		const unseen = commit(s, observe([], { topId: 0 }), all, NOW);
		expect(unseen.state.stuck).toEqual({ '5': entry, '6': entry });
		const seen = commit(s, observe([busy(5)], { topId: 0 }), all, NOW);
		expect(seen.state.stuck).toEqual({ '6': entry });
		expect(seen.state.pending).toEqual([5, 6]);
	});

	test('a failure of a scan that is not pending is ignored', () => {
		const result = commit(
			state({ pending: [5] }),
			observe([done(5)], {
				failed: new Map([
					[5, 'x'],
					[8, 'y'],
				]),
				topId: 0,
			}),
			all,
			NOW,
		);
		expect(result.state.stuck).toEqual({});
		expect(result.givenUp).toEqual([]);
	});

	test('more than MAX_PENDING followed scans: the oldest are dropped and named', () => {
		const pending = Array.from({ length: MAX_PENDING }, (_, i) => i + 1);
		const stuckEntry = { failures: 1, nextAt: 0, since: '', lastError: '' };
		const result = commit(
			state({ horizon: MAX_PENDING, pending, stuck: { '1': stuckEntry, '3': stuckEntry } }),
			observe([busy(MAX_PENDING + 1), busy(MAX_PENDING + 2)], { fetched: [1] }),
			all,
			NOW,
		);
		expect(result.dropped).toEqual([1, 2]);
		expect(result.state.pending).toHaveLength(MAX_PENDING);
		expect(result.state.pending[0]).toBe(3);
		expect(result.state.pending.at(-1)).toBe(MAX_PENDING + 2);
		expect(result.state.stuck).toEqual({ '3': stuckEntry });
		const exact = commit(state({ horizon: MAX_PENDING, pending }), observe([]), all, NOW);
		expect(exact.dropped).toEqual([]);
		expect(exact.state.pending).toEqual(pending);
	});

	test('the emitted guard keeps the newest MAX_EMITTED IDs, once each', () => {
		const emitted = Array.from({ length: MAX_EMITTED }, (_, i) => i + 1);
		const result = commit(
			state({ horizon: MAX_EMITTED, emitted, pending: [5] }),
			observe([done(MAX_EMITTED + 1), done(5)]),
			all,
			NOW,
		);
		expect(result.emit.map((s) => s.id)).toEqual([MAX_EMITTED + 1]);
		expect(result.state.emitted).toHaveLength(MAX_EMITTED);
		expect(result.state.emitted[0]).toBe(2);
		expect(result.state.emitted.at(-1)).toBe(MAX_EMITTED + 1);
		const dup = commit(state({ emitted: [3, 3, 4] }), observe([]), all, NOW);
		expect(dup.state.emitted).toEqual([3, 4]);
	});

	test('does not change the state it was given', () => {
		const s = state({ pending: [5], emitted: [1] });
		const copy = structuredClone(s);
		commit(s, observe([done(5), done(12)], { failed: new Map([[5, 'x']]) }), all, NOW);
		expect(s).toEqual(copy);
	});
});
