import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { ScanPoller } from '../waiting/ScanPoller';
import type { Deferred, ExecutionScope } from './scope';
import { mapWithConcurrency } from '../../shared/concurrency';
import { Pace } from '../../shared/pace';
import { httpStatusOf, isOutcomeUnknown } from '../../shared/transport';
import { asItemError, errorItem } from './items';
import { isDeferred } from './scope';
import { goesOnAfterFailure } from './tool';

/**
 * One operation of the action node, run for every input item in phases (see `runPhases`).
 * `State` is what the operation keeps for one execution (e.g. its uploads); only
 * `execute` is required.
 */
export interface PhasedOperation<State = undefined> {
	/** Makes the operation's state for one execution, before the first item is looked at. */
	createState?(this: IExecuteFunctions): State;
	/**
	 * The operation's requests wait for the execution's pace themselves (the upload, whose item
	 * also reads its file and may read listings); otherwise each item takes a place while it runs.
	 */
	pacesOwnRequests?: boolean;
	/** Local checks of one item (no request, no credit): all items pass them before any request. */
	validate?(
		this: IExecuteFunctions,
		itemIndex: number,
		scope: ExecutionScope<State>,
	): Promise<void>;
	/**
	 * After the local checks, before the first request: may hold items back (their errors, by
	 * item, failed in item order) or fail the whole batch by throwing.
	 */
	beforeRequests?(
		this: IExecuteFunctions,
		ready: number[],
		scope: ExecutionScope<State>,
	): Promise<Map<number, Error>>;
	/** Sends the item's requests; returns its output, or `Deferred` while it waits for a scan. */
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		scope: ExecutionScope<State>,
	): Promise<INodeExecutionData[] | Deferred>;
	/**
	 * Turns the error that stops the node after the first request (without Continue On Fail)
	 * into the node's error, e.g. naming what the execution already created.
	 */
	onStop?(this: IExecuteFunctions, error: unknown, scope: ExecutionScope<State>): Promise<unknown>;
}

/**
 * Runs one operation for every input item in three phases:
 * 1. local checks of every item (`validate`), before the first request;
 * 2. the requests, at the execution's pace (shared/pace.ts): up to `concurrency` at the
 *    service at once, starting lower and growing while the service answers quickly (see
 *    `pacesOwnRequests`);
 * 3. waiting: items whose scan is not final yet wait in the execution's one poller, which
 *    they joined as soon as their request returned (phase 2 does not wait for them).
 *
 * Output keeps input order and pairing. With Continue On Fail each failing item gives one
 * `{ error }` item and the others go on; without it the first failure fails the node: in
 * phase 1 before anything was sent, in phase 2 after the requests in flight ended (they may
 * have used credit) with the lowest failing item, in phase 3 at once. A failure after the
 * first request goes through the operation's `onStop`. As an AI tool a failure fails the call
 * (./tool.ts).
 */
export async function runPhases<State>(
	this: IExecuteFunctions,
	itemCount: number,
	operation: PhasedOperation<State>,
	concurrency: number,
): Promise<INodeExecutionData[]> {
	const continueOnFail = goesOnAfterFailure(this);
	const pace = new Pace(concurrency);
	const scope: ExecutionScope<State> = {
		poller: new ScanPoller(this, pace),
		pace,
		state: operation.createState?.call(this) as State,
	};
	const results = new Array<INodeExecutionData[]>(itemCount);
	const fail = (error: unknown, itemIndex: number) => {
		if (!continueOnFail) throw asItemError(this, error, itemIndex);
		results[itemIndex] = [errorItem(error, itemIndex)];
	};

	try {
		// 1. Local checks.
		const ready: number[] = [];
		for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
			try {
				await operation.validate?.call(this, itemIndex, scope);
				ready.push(itemIndex);
			} catch (error) {
				fail(error, itemIndex);
			}
		}

		// Limits known before the first request (held items fail here, in item order).
		const held =
			(await operation.beforeRequests?.call(this, ready, scope)) ?? new Map<number, Error>();
		for (const itemIndex of [...held.keys()].sort((a, b) => a - b))
			fail(held.get(itemIndex), itemIndex);
		const send = ready.filter((itemIndex) => !held.has(itemIndex));

		try {
			// 2. Requests, bounded by Concurrency and the execution's pace.
			const waiting: Array<[number, Promise<INodeExecutionData[]>]> = [];
			await mapWithConcurrency(
				send.length,
				concurrency,
				async (position) => {
					const itemIndex = send[position];
					const slot = operation.pacesOwnRequests ? undefined : await pace.acquire();
					const began = Date.now();
					try {
						const result = await operation.execute.call(this, itemIndex, scope);
						slot?.done({ kind: 'item', ms: Date.now() - began, status: 200 });
						if (isDeferred(result)) {
							// Handled below; a rejection before then is not an unhandled one.
							result.later.catch(() => undefined);
							waiting.push([itemIndex, result.later]);
						} else {
							results[itemIndex] = result;
						}
					} catch (error) {
						// The pace learns the item's status or lost answer, never a local failure.
						const [ms, status] = [Date.now() - began, httpStatusOf(error)];
						if (status !== undefined) slot?.done({ kind: 'item', ms, status });
						else if (isOutcomeUnknown(error)) slot?.done({ kind: 'item', ms, lost: true });
						else slot?.release();
						fail(error, itemIndex);
					}
				},
				!continueOnFail,
			);

			// 3. Waiting.
			await Promise.all(
				waiting.map(async ([itemIndex, later]) => {
					try {
						results[itemIndex] = await later;
					} catch (error) {
						fail(error, itemIndex);
					}
				}),
			);
		} catch (error) {
			throw (await operation.onStop?.call(this, error, scope)) ?? error;
		}
	} finally {
		await scope.poller.stop();
	}
	return results.flat();
}
