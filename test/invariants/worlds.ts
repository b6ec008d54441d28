/**
 * A world: one combination of the readings the sandbox plays (sandbox/engine/readings.ts), the
 * account's size, credit and hour, and the key's header. Drawn by fast-check, applied to a reset
 * sandbox before a case runs.
 */
import fc from 'fast-check';

import type { FailedBody } from '../../sandbox/engine/failed-bodies';
import type { PageEnd } from '../../sandbox/engine/listing-behaviour';
import { REWRITES, type RewriteSetting, type Sandbox, type ScanStatus } from '../../sandbox/server';

/** Scans the account already holds, oldest first (created two hours ago: outside the hour). */
export interface Segment {
	count: number;
	status: ScanStatus;
	template: 1 | 2;
}

export interface World {
	envelope: 'data' | 'bare';
	listedScans: 'full' | 'brief';
	duplicateCheck: 'afterLimits' | 'beforeLimits';
	retryAfter: boolean;
	pageEnd: PageEnd;
	ignorePage: boolean;
	metaPages: number | null;
	failedBody: FailedBody;
	storedFilename: 'basename' | 'asSent';
	latencyMs: number;
	rateLimit: number;
	/** Credit left at the start. */
	credits: number;
	/** Other clients' uploads in the rolling hour at the start. */
	hourFill: number;
	history: Segment[];
	authHeader: 'authorization' | 'xApiKey';
	/** Answers rewritten within what the documentation leaves open (sandbox/engine/rewrites.ts). */
	rewrites?: RewriteSetting[];
}

export const TWO_HOURS = 2 * 60 * 60 * 1000;

const weighted = <T>(...pairs: Array<[number, T]>): fc.Arbitrary<T> =>
	fc.oneof(...pairs.map(([weight, value]) => ({ weight, arbitrary: fc.constant(value) })));

const segment = (sizes: fc.Arbitrary<number>, statuses: fc.Arbitrary<ScanStatus>) =>
	fc.record({ count: sizes, status: statuses, template: weighted<1 | 2>([3, 1], [1, 2]) });

const anyStatus = weighted<ScanStatus>(
	[4, 'completed'],
	[2, 'processing'],
	[1, 'uploaded'],
	[2, 'failed'],
	[1, 'validation_failed'],
);

/** Account sizes: empty, a few pages, and large (a whole-account read costs 48-80 pages). */
export const historyArb = (statuses: fc.Arbitrary<ScanStatus> = anyStatus) =>
	fc.oneof(
		{ weight: 3, arbitrary: fc.constant<Segment[]>([]) },
		{
			weight: 4,
			arbitrary: fc.array(segment(weighted([2, 1], [2, 5], [2, 24], [2, 26], [1, 60]), statuses), {
				minLength: 1,
				maxLength: 4,
			}),
		},
		{
			weight: 2,
			arbitrary: fc.array(segment(weighted([1, 1], [1, 25], [2, 1200], [1, 2000]), statuses), {
				minLength: 1,
				maxLength: 3,
			}),
		},
	);

/**
 * One rewrite: a row of the sandbox's table (each a line the documentation leaves open), one of
 * its values, one of its requests, from which answer on and for how many. A new row is a new case.
 */
const rowArb = fc.oneof(
	...REWRITES.map((row) => ({
		// The rows that change what an upload or a listed record says, more often.
		weight: row.rule === 'unpromisedFields' ? 3 : row.rule === 'createdStatus' ? 2 : 1,
		arbitrary: fc.constant(row),
	})),
);
const rewriteArb: fc.Arbitrary<RewriteSetting> = rowArb.chain((row) =>
	fc
		.record({
			rule: fc.constant(row.rule),
			value: fc.constantFrom(...row.values),
			// The first request of a row (the upload, or the listing) most often: where the node reads most.
			target: fc.oneof(
				{ weight: 3, arbitrary: fc.constant(row.targets[0]) },
				{ weight: 2, arbitrary: fc.constantFrom(...row.targets) },
			),
			after: weighted([3, 0], [1, 1], [1, 2]),
			times: weighted([2, 1], [1, 2], [2, 1000]),
		})
		.map(({ rule, value, target, after, times }) => ({ rule, value, ...target, after, times })),
);

/** Half the worlds answer as the sandbox does; the others with one or two rewrites. */
export const rewritesArb: fc.Arbitrary<RewriteSetting[]> = fc.oneof(
	{ weight: 1, arbitrary: fc.constant<RewriteSetting[]>([]) },
	{ weight: 1, arbitrary: fc.array(rewriteArb, { minLength: 1, maxLength: 2 }) },
);

export const worldArb = (
	history = historyArb(),
	rewrites: fc.Arbitrary<RewriteSetting[]> = fc.constant<RewriteSetting[]>([]),
): fc.Arbitrary<World> =>
	fc.record({
		envelope: weighted<'data' | 'bare'>([3, 'data'], [1, 'bare']),
		listedScans: weighted<'full' | 'brief'>([1, 'full'], [1, 'brief']),
		duplicateCheck: weighted<'afterLimits' | 'beforeLimits'>(
			[1, 'afterLimits'],
			[1, 'beforeLimits'],
		),
		retryAfter: fc.boolean(),
		pageEnd: weighted<PageEnd>([3, 'empty'], [1, '404'], [1, '422'], [1, 'last']),
		ignorePage: weighted([12, false], [1, true]),
		metaPages: weighted<number | null>([8, null], [1, 20_000]),
		failedBody: weighted<FailedBody>(
			[2, 'scan_id'],
			[1, 'id'],
			[1, 'topLevel'],
			[1, 'noMessage'],
			[1, 'extra'],
		),
		storedFilename: weighted<'basename' | 'asSent'>([3, 'basename'], [1, 'asSent']),
		latencyMs: weighted([4, 0], [1, 3]),
		rateLimit: weighted([4, 200], [1, 12], [1, 4]),
		credits: weighted([6, 2000], [1, 3], [1, 1]),
		hourFill: weighted([5, 0], [1, 2], [1, 150]),
		history,
		authHeader: weighted<'authorization' | 'xApiKey'>([1, 'authorization'], [1, 'xApiKey']),
		rewrites,
	});

/** Resets the sandbox into the world. */
export function applyWorld(sandbox: Sandbox, world: World): void {
	const { control } = sandbox;
	control.reset({
		envelope: world.envelope,
		listedScans: world.listedScans,
		duplicateCheck: world.duplicateCheck,
		retryAfter: world.retryAfter,
		failedBody: world.failedBody,
		storedFilename: world.storedFilename,
		latencyMs: world.latencyMs,
		rateLimitPerHour: world.rateLimit,
	});
	control.setListing({
		pageEnd: world.pageEnd,
		ignorePage: world.ignorePage,
		metaPages: world.metaPages,
	});
	for (const part of world.history)
		control.seedScans({
			count: part.count,
			status: part.status,
			template_id: part.template,
			age_ms: TWO_HOURS,
		});
	const fill = Math.min(world.hourFill, world.rateLimit);
	if (fill > 0) control.seedUploads({ count: fill, template_id: 2 });
	control.setCredits(world.credits);
	if (world.rewrites?.length) control.setRewrites(world.rewrites);
	control.clearRequests();
}
