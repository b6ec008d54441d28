import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mapWithConcurrency } from '../shared/concurrency';
import {
	apiRequestFull,
	httpStatusOf,
	PAGE_SIZE,
	serverTimeOf,
	unwrapRecord,
} from '../shared/transport';
import { readListing } from '../shared/transport/listingReader';
import { endContradicted, restless } from '../shared/transport/listingErrors';
import { fetchListPage } from '../shared/transport/paging';
import { followPlan } from './follow';
import type { Observation, PollState } from './state';
import { isFullScan } from '../shared/scans/status';
import { isFinal, isFollowDue, scanIdOf } from './state';
import { inUnseen, lowestUnseen } from './unseen';

/**
 * The requests of one poll; nothing here changes the state (a failing listing request throws,
 * and nothing is committed). GET /scans lists newest first, 25 a page; IDs grow with creation.
 */

/** Pending scans fetched one by one per poll when they are deeper than the pages read. */
export const MAX_SINGLE_FETCHES = 10;
/** Finished scans listed without every field, read by ID per poll before they are emitted. */
export const MAX_WHOLE_READS = 25;
/** Answers to a single fetch that concern the account, not the scan: they fail the poll. */
const ACCOUNT_WIDE = new Set([401, 403, 429]);
/** Pages "Fetch Test Event" looks through for a finished scan. */
export const MANUAL_MAX_PAGES = 4;
/** Guard against a server that never ends its listing. */
const MAX_PAGES = 10_000;
/** How far back the first activation looks for unfinished scans: scans created this long before it… */
export const ACTIVATION_LOOKBACK_MS = 24 * 60 * 60 * 1000;
/** …and at most this many pages (1,000 scans). */
export const ACTIVATION_MAX_PAGES = 40;

interface ListingRead {
	scans: Map<number, IDataObject>;
	topId: number;
	capped: boolean;
	pageIgnored: boolean;
	/** Down to which ID the listing was read (1: to its end), and every ID listed (unseen.ts). */
	listed?: { low: number; ids: Set<number> };
}

/** GET /scans page by page, each page after the one before, with the shared shift-safe rules. */
async function readScans(
	ctx: IPollFunctions,
	stopAfter: (items: IDataObject[], serverNow: number) => boolean,
	maxPages: number,
): Promise<ListingRead> {
	let serverNow = Date.now();
	const result = await readListing({
		fetchPage: async (pageNumber) => {
			const page = await fetchListPage(ctx, '/scans', {}, pageNumber);
			if (pageNumber === 1) serverNow = serverTimeOf(page.headers) ?? Date.now();
			return page;
		},
		pageSize: PAGE_SIZE,
		maxPages,
		atMaxPages: maxPages === MAX_PAGES ? 'error' : 'stop',
		concurrency: 1,
		lookahead: 1,
		sequential: true,
		stopAfter: (items) => stopAfter(items, serverNow),
		tooManyPages: () =>
			new NodeOperationError(ctx.getNode(), `GET /scans did not end after ${MAX_PAGES} pages`),
		restless: () => restless(ctx, '/scans'),
		contradicted: (detail) => endContradicted(ctx, '/scans', detail),
		inParallel: async (count, width, task) => await mapWithConcurrency(count, width, task),
	});
	const scans = new Map<number, IDataObject>();
	for (const scan of result.records) {
		const id = scanIdOf(scan);
		if (id !== undefined && !scans.has(id)) scans.set(id, scan);
	}
	const ids = new Set(scans.keys());
	// Read to its end, the listing showed every ID it holds: nothing below the last page.
	// A loop, not Math.min(...ids): a long poll lists more IDs than a call takes arguments.
	let low = result.reachedEnd ? 1 : Infinity;
	if (!result.reachedEnd) for (const id of ids) low = Math.min(low, id);
	return {
		scans,
		topId: result.topId ?? 0,
		capped: result.capped,
		pageIgnored: result.pageIgnored,
		listed: ids.size > 0 ? { low, ids } : undefined,
	};
}

/**
 * The first activation's look at the account: page 1 gives the horizon; the pages down to
 * the first scan created more than ACTIVATION_LOOKBACK_MS before the service's clock (at most
 * ACTIVATION_MAX_PAGES) give the unfinished scans to follow.
 */
export async function observeAtActivation(ctx: IPollFunctions): Promise<ListingRead> {
	return await readScans(
		ctx,
		(items, serverNow) =>
			items.some((scan) => {
				const created = Date.parse(String(scan.created_at ?? ''));
				return Number.isFinite(created) && created < serverNow - ACTIVATION_LOOKBACK_MS;
			}),
		ACTIVATION_MAX_PAGES,
	);
}

/**
 * Reads the listing as far as follow.ts decides, then by ID: new finished scans `accept` takes
 * that were listed without every field (at most MAX_WHOLE_READS, lowest first), and the due
 * followed scans not on those pages (at most MAX_SINGLE_FETCHES, in the order of `pending`).
 * A failing read by ID is recorded in `failed`; it does not fail the poll.
 */
export async function observe(
	ctx: IPollFunctions,
	state: PollState,
	now: number,
	accept: (scan: IDataObject) => boolean = () => true,
): Promise<Observation> {
	const plan = followPlan({
		horizon: state.horizon,
		unseenFloor: lowestUnseen(state.unseen),
		pending: state.pending,
		singles: MAX_SINGLE_FETCHES,
	});
	const { scans, topId, listed, pageIgnored } = await readScans(ctx, plan.stopAfter, MAX_PAGES);

	const gone = new Set<number>();
	const fetched: number[] = [];
	const failed = new Map<number, string>();
	const whole = new Set<number>();
	/** One scan by ID into `scans`; undefined for a 404. A failure strikes the scan (`failed`). */
	const read = async (id: number): Promise<IDataObject | undefined | null> => {
		const answer = await fetchOne(ctx, id);
		if ('failure' in answer) {
			if (ACCOUNT_WIDE.has(httpStatusOf(answer.failure) ?? 0)) throw answer.failure;
			const { failure } = answer;
			failed.set(id, failure instanceof Error ? failure.message : String(failure));
			return null;
		}
		if (answer.scan !== undefined) {
			scans.set(id, answer.scan);
			whole.add(id);
		}
		return answer.scan;
	};
	const pending = new Set(state.pending);
	const brief = [...scans.entries()]
		.filter(([, scan]) => isFinal(scan) && !isFullScan(scan) && accept(scan))
		.filter(([id]) => id > state.horizon || pending.has(id) || inUnseen(state.unseen, id))
		.map(([id]) => id)
		.filter((id) => isFollowDue(state, id, now))
		.sort((a, b) => a - b)
		.slice(0, MAX_WHOLE_READS);
	for (const id of brief) await read(id);
	for (const id of state.pending) {
		if (scans.has(id)) continue;
		if (fetched.length >= MAX_SINGLE_FETCHES) break;
		if (!isFollowDue(state, id, now)) continue;
		fetched.push(id);
		if ((await read(id)) === undefined) gone.add(id);
	}
	return { scans, topId, listed, pageIgnored, gone, fetched, failed, whole };
}

/** The scan as GET /scans/{id} gives it, unless the listed record has every field already. */
export async function wholeScan(ctx: IPollFunctions, scan: IDataObject): Promise<IDataObject> {
	if (isFullScan(scan)) return scan;
	const answer = await fetchOne(ctx, scanIdOf(scan) ?? 0);
	if ('failure' in answer) throw answer.failure;
	return answer.scan ?? scan;
}

/** One pending scan by ID, one attempt (a later poll retries, with back-off: state.ts); undefined scan: 404. */
async function fetchOne(
	ctx: IPollFunctions,
	id: number,
): Promise<{ scan?: IDataObject } | { failure: unknown }> {
	try {
		const response = await apiRequestFull.call(ctx, {
			method: 'GET',
			path: `/scans/${id}`,
			passStatuses: [404],
			retry: false,
		});
		if (response.statusCode === 404) return {};
		const scan = unwrapRecord(response.body);
		return { scan: { ...scan, id: scan.id ?? id } };
	} catch (failure) {
		return { failure };
	}
}
