import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PAGE_SIZE } from '../shared/transport';
import { readScanPage } from '../shared/transport/paging';
import { selectedEvents } from '../shared/events';
import { accepts, type PollOptions, toItems } from './items';
import {
	ACTIVATION_MAX_PAGES,
	MANUAL_MAX_PAGES,
	observe,
	observeAtActivation,
	wholeScan,
} from './listing';
import { commit, heldBack } from './commit';
import type { CommitResult, Observation } from './state';
import { initialState, isFinal, readState, STUCK_MAX_FAILURES, writeState } from './state';

/**
 * `poll()` of the poll trigger. The first activation (no state yet) takes the newest scan ID as
 * the horizon, follows the unfinished scans of the 24 hours before and emits nothing; every
 * later poll emits the scans that reached a final state since; "Fetch Test Event" shows the
 * newest finished scan that passes the filters, state untouched. All requests happen before the
 * state changes: a failing listing request fails the poll with the state as it was.
 */
function settings(ctx: IPollFunctions): { events: string[]; options: PollOptions } {
	const events = selectedEvents(ctx.getNodeParameter('events', []));
	const options = ctx.getNodeParameter('options', {}) as PollOptions;
	return { events, options };
}

async function fetchTestEvent(ctx: IPollFunctions): Promise<INodeExecutionData[][]> {
	const { events, options } = settings(ctx);
	for (let pageNumber = 1; pageNumber <= MANUAL_MAX_PAGES; pageNumber++) {
		const page = await readScanPage(ctx, {}, pageNumber);
		const newest = page.items.find((scan) => isFinal(scan) && accepts(scan, events, options));
		if (newest) return [toItems([await wholeScan(ctx, newest)], options, new Date())];
		if (page.last) break;
	}
	throw new NodeOperationError(ctx.getNode(), 'No finished scan matches this trigger yet', {
		description: `Fetch Test Event shows the newest finished scan of the selected events and templates among the latest ${
			MANUAL_MAX_PAGES * PAGE_SIZE
		} scans. Upload a document (e.g. with the Document Scanning node), wait until it is processed, then try again.`,
	});
}

export async function pollScans(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	if (this.getMode() === 'manual') return await fetchTestEvent(this);

	const staticData = this.getWorkflowStaticData('node') as IDataObject;
	const before = readState(staticData);
	if (before === undefined) {
		const look = await observeAtActivation(this);
		if (look.pageIgnored)
			this.logger.warn(
				`${pageIgnoredWords(look.listed?.ids.size ?? 0)} Unfinished scans below them are not followed.`,
			);
		if (look.capped)
			this.logger.warn(
				`${NAME}: looked through the newest ${ACTIVATION_MAX_PAGES * PAGE_SIZE} scans at activation; unfinished scans older than those are not followed`,
			);
		writeState(staticData, initialState(look.scans.values(), look.topId, new Date()));
		return null;
	}

	const { events, options } = settings(this);
	const now = Date.now();
	const observation = await observe(this, before, now, (scan) => accepts(scan, events, options));
	if (heldBack(before.horizon, observation)) throw unreachable(this, before.horizon, observation);

	// Commit against the state as it is now: an overlapping poll may have committed meanwhile.
	const current = readState(staticData) ?? before;
	const result = commit(current, observation, (scan) => accepts(scan, events, options), now);
	logOutcome(this, result);
	if (JSON.stringify(result.state) !== JSON.stringify(current))
		writeState(staticData, result.state);
	if (result.emit.length === 0) return null;
	return [toItems(result.emit, options, new Date())];
}

const NAME = 'Document Scanning Poll Trigger';

function pageIgnoredWords(listed: number): string {
	return `${NAME}: GET /scans answered a page after page 1 with page 1's scans again: the service seems to ignore \`page\`, so only its newest scans could be listed (${listed} this time).`;
}

/** A service that ignores `page` hid scans made since the last poll: the poll fails naming them. */
function unreachable(ctx: IPollFunctions, horizon: number, observation: Observation) {
	const listed = observation.listed;
	return new NodeOperationError(
		ctx.getNode(),
		`${pageIgnoredWords(listed?.ids.size ?? 0)} Scans ${horizon + 1} to ${(listed?.low ?? horizon + 1) - 1} could not be listed; nothing was emitted`,
		{
			description: `The trigger stays at scan ${horizon} and emits these scans and the newer ones once the service answers \`page\`. Poll more often, so that fewer than ${PAGE_SIZE} scans are made between two polls. To give these scans up, rename this trigger node and save (on n8n 2, publish it too: the active workflow runs its published version): n8n keeps a trigger's memory under its name (also while the workflow is inactive), so the renamed one starts from the newest scan.`,
		},
	);
}

/** The warnings of one poll in n8n's log: what was given up, dropped, found late. */
function logOutcome(ctx: IPollFunctions, result: CommitResult): void {
	for (const { id, status } of result.strange)
		ctx.logger.warn(
			`${NAME}: scan ${id} shows status "${status}", which is not one the API lists; it is looked at again with back-off and given up after ${STUCK_MAX_FAILURES} looks unless it finishes`,
		);
	for (const stuck of result.givenUp)
		ctx.logger.warn(
			stuck.status === undefined
				? `${NAME}: gave up following scan ${stuck.id} after ${stuck.failures} failed requests since ${stuck.since} (last error: ${stuck.lastError}); it will not start the workflow. Check it with Document Scanning → Scan → Get.`
				: `${NAME}: gave up following scan ${stuck.id}: its status stayed "${stuck.status}", which is not one the API lists, for ${stuck.failures} looks since ${stuck.since}; it will not start the workflow. Check it with Document Scanning → Scan → Get.`,
		);
	if (result.dropped.length > 0)
		ctx.logger.warn(
			`${NAME}: stopped following ${result.dropped.length} unfinished scans (more than the limit); oldest: ${result.dropped[0]}`,
		);
	for (const found of result.resurfaced)
		ctx.logger.warn(
			`${NAME}: scan ${found.id} (status ${found.status}) appeared in the listing below the window in which late scans are looked for; it is followed from now on and starts the workflow when it finishes.`,
		);
}
