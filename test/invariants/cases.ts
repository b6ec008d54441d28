/**
 * A generated case: a world, the node's settings, and a run or a sequence of runs with faults
 * and other clients' activity. Four kinds: upload batches and re-runs (the action node), Get
 * Many with filters while the listing changes, poll sequences, and webhook deliveries with
 * (re-)activations in between. Plain data, so a failing case prints as a ready test.
 */
import fc from 'fast-check';

import type { Outcome, ScanStatus } from '../../sandbox/server';
import { activityArb, type ActivityDraw, faultsArb, type FaultDraw } from './faults';
import {
	type GetManySettings,
	getManySettingsArb,
	type OnDuplicate,
	type TriggerSettings,
	triggerSettingsArb,
	type UploadSettings,
	uploadSettingsArb,
} from './settings';
import { historyArb, rewritesArb, type World, worldArb } from './worlds';
import { type ToolCase, toolCaseArb } from './run-tool';

/** One input item: which content (`doc`), under which name, with which per-item choice. */
export interface UploadDoc {
	doc: number;
	name: number;
	onDuplicate: OnDuplicate;
}

export interface UploadRun {
	docs: UploadDoc[];
	faults: FaultDraw[];
	activity: ActivityDraw[];
	/** Virtual time that passes before this run (e.g. the hour). */
	laterMs: number;
}

export interface UploadCase {
	kind: 'upload';
	world: World;
	settings: UploadSettings;
	runs: UploadRun[];
}

/** Scans that change while Get Many reads: picked among the world's scans when the case runs. */
export interface ListingChange {
	/** Before the GET /scans request after this many. */
	afterListRequests: number;
	/** The scans that change: the newest or oldest `count` in status `from`. */
	from: ScanStatus;
	pick: 'newest' | 'oldest';
	count: number;
	/** Their new status (`reprocess`: a finished scan processed again into `to`). */
	to: ScanStatus;
	how: 'status' | 'reprocess';
}

export interface GetManyCase {
	kind: 'getMany';
	world: World;
	settings: GetManySettings;
	/** Scans hidden at the start (the newest `hidden` of the filter), revealed after this many list requests. */
	late: { hidden: number; revealAfter: number };
	changes: ListingChange[];
	created: Array<{ afterListRequests: number; count: number; status: ScanStatus; template: 1 | 2 }>;
	faults: FaultDraw[];
}

export interface PollRound {
	/** Scans that appear finished (seeded, as another client's scans seen later). */
	finished: Array<{ count: number; status: Outcome; template: 1 | 2 }>;
	/** Other clients' uploads that finish before the poll. */
	processing: number;
	/** The newest this many of the round are visible only from the next round on. */
	hidden: number;
	faults: FaultDraw[];
	/** n8n restarts after this round's poll (the static data as last saved). */
	restart: boolean;
}

export interface PollCase {
	kind: 'poll';
	world: World;
	settings: TriggerSettings;
	rounds: PollRound[];
}

export type WebhookStep =
	/** A result finishing; its delivery leaves the service's queue `lateMin` minutes late. */
	| { do: 'scan'; outcome: Outcome; lateMin: number }
	| { do: 'repeat'; restamp: boolean; copies: number; back: number }
	| { do: 'reprocess'; outcome: Outcome; back: number }
	| { do: 'reactivate' }
	| { do: 'reactivateWhileHeld'; outcome: Outcome };

export interface WebhookCase {
	kind: 'webhook';
	world: World;
	settings: TriggerSettings;
	steps: WebhookStep[];
}

export type Case = UploadCase | GetManyCase | PollCase | WebhookCase | ToolCase;
export type CaseKind = Case['kind'];

const weighted = <T>(...pairs: Array<[number, T]>): fc.Arbitrary<T> =>
	fc.oneof(...pairs.map(([weight, value]) => ({ weight, arbitrary: fc.constant(value) })));

const docArb: fc.Arbitrary<UploadDoc> = fc.record({
	doc: fc.oneof(
		{ weight: 6, arbitrary: fc.nat(3) },
		{ weight: 1, arbitrary: fc.integer({ min: 4, max: 39 }) },
	),
	// Name 3 ("invalid-c.pdf") ends in validation_failed: data with validation errors.
	name: fc.oneof(
		{ weight: 6, arbitrary: fc.nat(2) },
		{ weight: 2, arbitrary: fc.constant(3) },
		{ weight: 1, arbitrary: fc.nat(6) },
	),
	onDuplicate: fc.constantFrom<OnDuplicate>('error', 'returnExisting'),
});

/** The same file twice in a batch, the first item choosing Error and the second Return Existing, then a new file. */
const sameFileTwice = (doc: fc.Arbitrary<number>): fc.Arbitrary<UploadDoc[]> =>
	fc
		.record({ x: doc, y: fc.integer({ min: 4, max: 39 }), name: fc.nat(2) })
		.map(({ x, y, name }) => [
			{ doc: x, name, onDuplicate: 'error' as const },
			{ doc: x, name, onDuplicate: 'returnExisting' as const },
			{ doc: y, name: name + 1, onDuplicate: 'returnExisting' as const },
		]);

/** The settings with the service's own hourly limit (no "Hourly Upload Limit" option). */
function withoutHourlyLimit(settings: UploadSettings): UploadSettings {
	const { hourlyLimit: _limit, ...rest } = settings;
	return rest;
}

const runArb = (docs: fc.Arbitrary<UploadDoc[]>): fc.Arbitrary<UploadRun> =>
	fc.record({
		docs,
		faults: faultsArb(['upload', 'listing', 'scanRead', 'account']),
		activity: activityArb(['upload', 'listing', 'scanRead']),
		laterMs: weighted([6, 0], [1, 61 * 60 * 1000]),
	});

const uploadRunArb: fc.Arbitrary<UploadRun> = fc.oneof(
	{
		weight: 10,
		arbitrary: runArb(
			fc.oneof(
				{ weight: 6, arbitrary: fc.array(docArb, { minLength: 1, maxLength: 6 }) },
				{ weight: 2, arbitrary: fc.array(docArb, { minLength: 7, maxLength: 12 }) },
				{ weight: 1, arbitrary: fc.array(docArb, { minLength: 26, maxLength: 32 }) },
				{ weight: 2, arbitrary: sameFileTwice(fc.nat(3)) },
			),
		),
	},
	{
		weight: 3,
		// An answer lost after the upload was stored, 30 scans of the template made after it, and
		// 25 more as the listing that looks for it asks for page 2: page 2 repeats page 1 (#32 §3).
		arbitrary: fc
			.record({
				docs: fc.array(docArb, { minLength: 1, maxLength: 4 }),
				lost: fc.constantFrom(0, 1),
				more: fc.constantFrom(25, 30),
				laterMs: fc.constant(0),
			})
			.map(({ docs, lost, more, laterMs }) => ({
				docs,
				laterMs,
				faults: [
					{ on: 'upload' as const, kind: 'dropAfterCommit' as const, after: lost, times: 1 },
				],
				activity: [
					{
						on: 'upload' as const,
						after: lost + 1,
						what: 'create' as const,
						count: 30,
						template: 1 as const,
					},
					{
						on: 'listing' as const,
						after: 0,
						what: 'pushDown' as const,
						count: more,
						template: 1 as const,
					},
				],
			})),
	},
);

/** A re-run within the hour: a file of the first run comes twice with different choices. */
const reRunArb = (
	settings: fc.Arbitrary<UploadSettings>,
	again = runArb(fc.constant([])),
	firstRun = uploadRunArb,
	rewrites = rewritesArb,
): fc.Arbitrary<UploadCase> =>
	fc
		.record({
			kind: fc.constant('upload' as const),
			world: worldArb(historyArb(), rewrites),
			settings,
			first: firstRun,
			again,
			twice: sameFileTwice(fc.constant(0)),
		})
		.map(({ kind, world, settings, first, again, twice }) => ({
			kind,
			world,
			settings,
			runs: [
				first,
				{ ...again, laterMs: 0, docs: twice.map((d) => ({ ...d, doc: first.docs[0].doc })) },
			],
		}));

/**
 * What refuses the batch's uploads: the service (a 429 or a 402) from the first upload on or
 * after one, or another client filling the hour after the first upload.
 */
const refusalArb: fc.Arbitrary<Pick<UploadRun, 'faults' | 'activity'>> = fc.oneof(
	{
		weight: 5,
		arbitrary: fc
			.record({ status: weighted([2, 429], [1, 402]), after: weighted([5, 0], [1, 1]) })
			.map(({ status, after }) => ({
				faults: [{ on: 'upload' as const, kind: 'status' as const, status, after, times: 2 }],
				activity: [],
			})),
	},
	{
		weight: 1,
		arbitrary: fc.constant<Pick<UploadRun, 'faults' | 'activity'>>({
			faults: [],
			activity: [
				{
					on: 'upload' as const,
					after: 1,
					what: 'fillHour' as const,
					count: 0,
					template: 2 as const,
				},
			],
		}),
	},
);

/**
 * A limit refusal as a batch starts: more new documents than the pace's first window (5), more
 * places than that (Concurrency), often under a template whose listing is long. The uploads
 * waiting for a place when the refusal arrives are not sent (invariant 7), and a document
 * refused under "Return Existing Scan" is looked for only among the scans already read, not down
 * the whole listing (invariant 9: hence mostly without Wait for Completion, whose rounds the
 * bound allows for).
 */
const refusedBatchArb: fc.Arbitrary<UploadCase> = fc
	.record({
		world: worldArb(
			fc.oneof(
				historyArb(),
				fc.constantFrom(1200, 2000).map((count) => [
					{ count, status: 'completed' as const, template: 1 as const },
					{ count: 5, status: 'completed' as const, template: 2 as const },
				]),
			),
		),
		settings: uploadSettingsArb,
		wait: weighted<UploadSettings['waitForCompletion']>([3, false], [1, true]),
		concurrency: weighted([5, 64], [1, 2]),
		// Distinct new documents (one upload each), more than the pace's first window.
		docs: fc.uniqueArray(
			fc.record({
				doc: fc.integer({ min: 4, max: 39 }),
				name: fc.nat(2),
				onDuplicate: fc.constantFrom<OnDuplicate>('error', 'returnExisting', 'returnExisting'),
			}),
			{ minLength: 7, maxLength: 10, selector: (d) => d.doc },
		),
		refusal: refusalArb,
	})
	.map(({ world, settings, wait, concurrency, docs, refusal }) => ({
		kind: 'upload' as const,
		// The refusal drawn is the first: the hour and the credit leave room for every document.
		world: { ...world, rateLimit: 200, hourFill: 0, credits: 2000 },
		settings: { ...withoutHourlyLimit(settings), waitForCompletion: wait, concurrency },
		runs: [{ docs, ...refusal, laterMs: 0 }],
	}));

/**
 * New documents waited for while every read of their scans fails for a while (a 429, a 404, a
 * 5xx): the uploads were charged, so each item, or the stop error, names its scan (invariant 2).
 */
const readsFailWhileWaitingArb: fc.Arbitrary<UploadCase> = fc
	.record({
		world: worldArb(historyArb()),
		settings: uploadSettingsArb,
		docs: fc.uniqueArray(
			fc.record({
				doc: fc.integer({ min: 4, max: 39 }),
				name: fc.nat(2),
				onDuplicate: fc.constantFrom<OnDuplicate>('error', 'returnExisting'),
			}),
			{ minLength: 1, maxLength: 3, selector: (d) => d.doc },
		),
		status: fc.constantFrom(429, 404, 503),
		times: fc.constantFrom(2, 6),
	})
	.map(({ world, settings, docs, status, times }) => ({
		kind: 'upload' as const,
		world: { ...world, rateLimit: 200, hourFill: 0, credits: 2000 },
		settings: { ...settings, waitForCompletion: true },
		runs: [
			{
				docs,
				faults: [{ on: 'scanRead' as const, kind: 'status' as const, status, after: 0, times }],
				activity: [],
				laterMs: 0,
			},
		],
	}));

/** Per-item choice, fingerprints on (the re-run whose first item is refused as already uploaded). */
const perItemSettingsArb = uploadSettingsArb.map((settings) => ({
	...settings,
	version: 1.1 as const,
	onDuplicate: 'perItem' as const,
	storedFileName: 'withFingerprint' as const,
}));
const noRun = fc.constant<UploadRun>({ docs: [], faults: [], activity: [], laterMs: 0 });

export const uploadCaseArb: fc.Arbitrary<UploadCase> = fc.oneof(
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('upload' as const),
			world: worldArb(historyArb(), rewritesArb),
			settings: uploadSettingsArb,
			runs: fc.array(uploadRunArb, { minLength: 1, maxLength: 3 }),
		}),
	},
	{ weight: 2, arbitrary: reRunArb(uploadSettingsArb) },
	{
		weight: 2,
		// The same with the choice per item, fingerprints on: the first item refused at its upload
		// (409, "Error"), its repeats choosing "Return Existing Scan".
		arbitrary: reRunArb(perItemSettingsArb, noRun),
	},
	{
		weight: 3,
		// The same after a first run without faults that stored the file. With Continue On Fail
		// and an Hourly Upload Limit, the check before the uploads holds the first item back and
		// its repeats learn why at once; without either (one document then needs no check), the
		// first item's 409 stops the node and its repeats read nothing after it (invariant 5).
		arbitrary: reRunArb(
			fc.oneof(
				{
					weight: 2,
					arbitrary: perItemSettingsArb.map((settings) => ({
						...settings,
						hourlyLimit: settings.hourlyLimit ?? 150,
						continueOnFail: true,
						// Not waiting: an execution that hangs is called so after 14 s, not 34 s.
						waitForCompletion: false,
					})),
				},
				{
					weight: 1,
					arbitrary: perItemSettingsArb.map((settings) => ({
						...withoutHourlyLimit(settings),
						continueOnFail: false,
					})),
				},
			),
			noRun,
			runArb(fc.array(docArb, { minLength: 1, maxLength: 4 })).map((run) => ({
				...run,
				faults: [],
				activity: [],
				laterMs: 0,
			})),
			fc.constant([]),
		),
	},
	{ weight: 3, arbitrary: refusedBatchArb },
	{ weight: 1, arbitrary: readsFailWhileWaitingArb },
);

const statusArb = fc.constantFrom<ScanStatus>(
	'processing',
	'completed',
	'failed',
	'uploaded',
	'validation_failed',
);

/** Listed records whose unpromised fields are null or of another type, more often for Get Many. */
const listedFieldsArb = fc.oneof(
	{ weight: 2, arbitrary: rewritesArb },
	{
		weight: 1,
		arbitrary: fc
			.constantFrom('null', 'text', 'number', 'list', 'object')
			.map((value) => [
				{ rule: 'unpromisedFields' as const, value, method: 'GET', path: '^/scans$' },
			]),
	},
);

const getManyAnyArb: fc.Arbitrary<GetManyCase> = fc.record({
	kind: fc.constant('getMany' as const),
	world: worldArb(historyArb(statusArb), listedFieldsArb),
	settings: getManySettingsArb,
	late: fc.oneof(
		{ weight: 4, arbitrary: fc.constant({ hidden: 0, revealAfter: 0 }) },
		{
			weight: 1,
			arbitrary: fc.record({
				hidden: fc.constantFrom(1, 2),
				revealAfter: fc.constantFrom(0, 1, 2),
			}),
		},
	),
	changes: fc.array(
		fc.record({
			afterListRequests: fc.constantFrom(0, 1, 2, 3),
			from: statusArb,
			pick: fc.constantFrom<'newest' | 'oldest'>('newest', 'oldest'),
			count: fc.constantFrom(1, 2, 5),
			to: statusArb,
			how: fc.constantFrom<'status' | 'reprocess'>('status', 'status', 'reprocess'),
		}),
		{ maxLength: 2 },
	),
	created: fc.array(
		fc.record({
			afterListRequests: fc.constantFrom(0, 1, 2),
			count: fc.constantFrom(1, 25, 26),
			status: statusArb,
			template: fc.constantFrom<1 | 2>(1, 2),
		}),
		{ maxLength: 1 },
	),
	faults: faultsArb(['listing', 'anyGet']),
});

/**
 * Get Many's rare shape: one old scan stuck in the filtered status under a large account, and a
 * page or so of recent ones (the repair must not read the whole account to close that gap).
 */
export const getManyCaseArb: fc.Arbitrary<GetManyCase> = fc.oneof(
	{ weight: 3, arbitrary: getManyAnyArb },
	{
		weight: 1,
		// Finished scans of every final status listed with their unpromised fields of another type.
		arbitrary: fc
			.record({
				base: getManyAnyArb,
				value: fc.constantFrom('null', 'text', 'number', 'list', 'object'),
				status: fc.constantFrom<ScanStatus | undefined>(
					undefined,
					'validation_failed',
					'completed',
				),
			})
			.map(({ base, value, status }) => ({
				...base,
				settings: { ...base.settings, status },
				faults: [],
				world: {
					...base.world,
					rewrites: [{ rule: 'unpromisedFields' as const, value, method: 'GET', path: '^/scans$' }],
					// Newest last: the validation_failed ones come first in the listing.
					history: [
						{ count: 5, status: 'failed' as const, template: 1 as const },
						{ count: 30, status: 'completed' as const, template: 2 as const },
						{ count: 30, status: 'validation_failed' as const, template: 1 as const },
					],
				},
			})),
	},
	{
		weight: 1,
		// A large status-filtered listing that does not change while it is read: each page once.
		arbitrary: fc
			.record({
				base: getManyAnyArb,
				status: fc.constantFrom<ScanStatus>('completed', 'validation_failed', 'failed'),
				size: fc.constantFrom(600, 1200),
			})
			.map(({ base, status, size }) => ({
				...base,
				settings: { ...base.settings, status, template: undefined, returnAll: true },
				late: { hidden: 0, revealAfter: 0 },
				changes: [],
				created: [],
				faults: [],
				// Whole listed scans as the sandbox gives them: no scan is read again by ID.
				world: {
					...base.world,
					listedScans: 'full' as const,
					rewrites: [],
					history: [
						{ count: size, status, template: 1 as const },
						{ count: 30, status: 'processing' as const, template: 1 as const },
					],
				},
			})),
	},
	{
		weight: 1,
		arbitrary: fc
			.record({
				base: getManyAnyArb,
				status: fc.constantFrom<ScanStatus>('processing', 'uploaded'),
				size: fc.constantFrom(1200, 2000),
				recent: fc.constantFrom(24, 25, 26),
			})
			.map(({ base, status, size, recent }) => ({
				...base,
				settings: { ...base.settings, status, template: undefined, returnAll: true },
				world: {
					...base.world,
					metaPages: null,
					ignorePage: false,
					history: [
						{ count: 1, status, template: 1 as const },
						{ count: size, status: 'completed' as const, template: 1 as const },
						{ count: recent, status, template: 1 as const },
					],
				},
			})),
	},
);

const outcomeArb = fc.constantFrom<Outcome>(
	'completed',
	'completed',
	'validation_failed',
	'failed',
);

const pollAnyArb: fc.Arbitrary<PollCase> = fc.record({
	kind: fc.constant('poll' as const),
	world: worldArb(
		historyArb(fc.constantFrom<ScanStatus>('completed', 'failed', 'processing')),
		rewritesArb,
	),
	settings: triggerSettingsArb,
	rounds: fc.array(
		fc.record({
			finished: fc.array(
				fc.record({
					count: weighted([4, 1], [3, 3], [2, 26], [1, 60]),
					status: outcomeArb,
					template: fc.constantFrom<1 | 2>(1, 2),
				}),
				{ maxLength: 2 },
			),
			processing: weighted([3, 0], [2, 2], [1, 30]),
			hidden: weighted([5, 0], [1, 1], [1, 2]),
			faults: faultsArb(['listing', 'scanRead']),
			restart: weighted([4, false], [1, true]),
		}),
		{ minLength: 1, maxLength: 4 },
	),
});

/**
 * Poll cases; one in four with finished scans the trigger's events leave out, listed brief and
 * answered as the sandbox gives them, then 60 more above them: each is settled from its listed
 * record, not followed (and read down to) at every poll (invariant 9).
 */
export const pollCaseArb: fc.Arbitrary<PollCase> = fc.oneof(
	{ weight: 3, arbitrary: pollAnyArb },
	{
		weight: 1,
		arbitrary: fc
			.record({
				base: pollAnyArb,
				wanted: fc.constantFrom<Outcome>('completed', 'failed'),
				count: fc.constantFrom(1, 3),
			})
			.map(({ base, wanted, count }): PollCase => {
				const left: Outcome = wanted === 'completed' ? 'failed' : 'completed';
				const round = (finished: PollRound['finished']): PollRound => ({
					finished,
					processing: 0,
					hidden: 0,
					faults: [],
					restart: false,
				});
				return {
					...base,
					world: { ...base.world, listedScans: 'brief', rewrites: [] },
					settings: { ...base.settings, events: [`scan.${wanted}`] },
					rounds: [
						round([{ count, status: left, template: 1 }]),
						...base.rounds,
						round([{ count: 60, status: left, template: 1 }]),
					],
				};
			}),
	},
);

const stepArb: fc.Arbitrary<WebhookStep> = fc.oneof(
	{
		weight: 5,
		arbitrary: fc.record({
			do: fc.constant('scan' as const),
			outcome: outcomeArb,
			// 6 minutes: outside version 1's tolerance, inside 1.1's; 2 hours: outside both.
			lateMin: weighted([6, 0], [1, 6], [1, 120]),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			do: fc.constant('repeat' as const),
			restamp: fc.boolean(),
			copies: weighted([4, 1], [1, 2]),
			back: fc.nat(2),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			do: fc.constant('reprocess' as const),
			outcome: outcomeArb,
			back: fc.nat(2),
		}),
	},
	{ weight: 1, arbitrary: fc.constant({ do: 'reactivate' as const }) },
	{
		weight: 2,
		arbitrary: fc.record({ do: fc.constant('reactivateWhileHeld' as const), outcome: outcomeArb }),
	},
);

export const webhookCaseArb: fc.Arbitrary<WebhookCase> = fc.record({
	kind: fc.constant('webhook' as const),
	world: worldArb(fc.constant([])),
	settings: triggerSettingsArb,
	steps: fc.array(stepArb, { minLength: 1, maxLength: 6 }),
});

/** Every kind, or only the ones asked for. */
export function caseArb(
	kinds: CaseKind[] = ['upload', 'getMany', 'poll', 'webhook', 'tool'],
): fc.Arbitrary<Case> {
	const all: Array<{ kind: CaseKind; weight: number; arbitrary: fc.Arbitrary<Case> }> = [
		{ kind: 'upload', weight: 5, arbitrary: uploadCaseArb },
		{ kind: 'getMany', weight: 2, arbitrary: getManyCaseArb },
		{ kind: 'poll', weight: 2, arbitrary: pollCaseArb },
		{ kind: 'webhook', weight: 3, arbitrary: webhookCaseArb },
		{ kind: 'tool', weight: 1, arbitrary: toolCaseArb },
	];
	return fc.oneof(...all.filter((choice) => kinds.includes(choice.kind)));
}
