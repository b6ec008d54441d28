/**
 * What one execution (a workflow run, a poll, a delivery sequence) left behind, for the
 * invariants: its items, its error, the requests the sandbox saw and the node sent, how long it
 * took against its bound, and the sandbox's records of every scan it names, taken right after.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { RequestLogEntry, Sandbox, ScanRecord } from '../../sandbox/server';
import type { RunResult } from '../support/run-node';
import type { WireEvent } from './observe';

export type Operation = 'upload' | 'getMany' | 'poll' | 'webhook' | 'tool';

export interface StopError {
	message: string;
	description?: string;
	context?: IDataObject;
}

export interface Execution {
	/** e.g. "upload run 2", "poll 3". */
	label: string;
	op: Operation;
	/** Output (or emitted) items' JSON, and the input item each is paired to. */
	items: IDataObject[];
	paired: number[];
	/** Input items (upload, Get Many). */
	inputs: number;
	continueOnFail: boolean;
	error?: StopError;
	/** The execution had not ended within its bound (invariant 5). */
	timedOut: boolean;
	boundMs: number;
	elapsedMs: number;
	/** Requests the execution's own work started after it had returned. */
	lateRequests?: string[];
	requests: RequestLogEntry[];
	wire: WireEvent[];
	/** The sandbox's record of every scan the items name, right after the execution. */
	records: Record<number, ScanRecord>;
	/** Upload: the SHA-256 of each input item's file. */
	docs?: string[];
	/** Upload: scans made whose credit came back (they failed). */
	refunded?: number[];
	/** Invariant 9: the most requests the work allows, with its formula. */
	requestBound?: { limit: number; count: number; what: string; formula: string };
	/** A tool call (run-tool.ts): the text the model or MCP client got, and what it must not hold. */
	answer?: string;
	hidden?: string[];
	/** Get Many: scans that matched the filter at the start, at the end, and those that changed meanwhile. */
	listing?: { start: number[]; end: number[]; changed: number[] };
}

/** The IDs of scans an item names as its own: `id` (raw), `scan_id` (shaped, errors), `data.scan_id` (triggers). */
export function scanIdsOf(item: IDataObject): number[] {
	const ids: number[] = [];
	const add = (value: unknown) => {
		const id = Number(value);
		if (Number.isSafeInteger(id) && id > 0) ids.push(id);
	};
	if (item.error === undefined) add(item.id);
	add(item.scan_id);
	const data = item.data as IDataObject | undefined;
	if (data && typeof data === 'object') add(data.scan_id ?? data.id);
	const scan = item.scan as IDataObject | undefined;
	if (scan && typeof scan === 'object') add(scan.id);
	return [...new Set(ids)];
}

function pairedOf(items: INodeExecutionData[]): number[] {
	return items.map((item) => {
		const paired = item.pairedItem;
		if (typeof paired === 'number') return paired;
		if (Array.isArray(paired)) return paired[0]?.item ?? -1;
		return paired?.item ?? -1;
	});
}

export function recordsOf(sandbox: Sandbox, items: IDataObject[]): Record<number, ScanRecord> {
	const records: Record<number, ScanRecord> = {};
	for (const item of items)
		for (const id of scanIdsOf(item)) {
			const scan = sandbox.control.getScan(id);
			if (scan) records[id] = scan;
		}
	return records;
}

export type Bounded<T> = { done: true; value: T } | { done: false };

/** What a runNode() bounded by within() left: its items, their pairing, its error, whether it was still running. */
export function nodeRunOf(
	outcome: Bounded<RunResult>,
): Pick<Execution, 'items' | 'paired' | 'error' | 'timedOut'> {
	const output = outcome.done ? outcome.value.output : [];
	const error = outcome.done ? outcome.value.error : undefined;
	return {
		items: output.map((item) => item.json),
		paired: pairedOf(output),
		...(error
			? {
					error: {
						message: error.message,
						description: error.description ?? undefined,
						context: error.context as IDataObject | undefined,
					},
				}
			: {}),
		timedOut: !outcome.done,
	};
}

/** Resolves with the promise's value, or `{done: false}` once `ms` passed (the promise is left behind). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<Bounded<T>> {
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<Bounded<T>>((resolve) => {
		timer = setTimeout(() => resolve({ done: false }), ms);
	});
	try {
		return await Promise.race([promise.then((value) => ({ done: true as const, value })), late]);
	} finally {
		clearTimeout(timer);
	}
}

/** Waits for a condition on the sandbox's own state (ended by its timers), at most `ms`. */
export async function until(condition: () => boolean, ms = 15_000): Promise<boolean> {
	const deadline = Date.now() + ms;
	while (!condition()) {
		if (Date.now() > deadline) return false;
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	return true;
}

export const FINAL = ['completed', 'validation_failed', 'failed'];

/** Every scan of the sandbox, by ID (IDs are a counter from 1). */
export function allScans(sandbox: Sandbox): ScanRecord[] {
	const scans: ScanRecord[] = [];
	for (let id = 1; ; id++) {
		const scan = sandbox.control.getScan(id);
		if (!scan) return scans;
		scans.push(scan);
	}
}

/** A distinct result the service delivered to the webhook trigger, and what became of it. */
export interface DeliveredResult {
	/** event, scan, status and the result's content. */
	identity: string;
	/** Whether the trigger's settings start the workflow for it (events, Include Validation Failed). */
	wanted: boolean;
	/** How many deliveries carried it, and whether any two of them were handled at the same time. */
	deliveries: number;
	overlapped: boolean;
	/**
	 * Deliveries whose signed timestamp lay within the trigger's replay tolerance and that were
	 * signed by a webhook the service still held when they arrived.
	 */
	timely: number;
	/** Deliveries signed by a webhook deleted before they arrived (a retired secret) that ran. */
	retiredRun: number;
	/** Deliveries beyond the tolerance that started an execution, and the answers that refused them (not 2xx). */
	lateRun: number;
	lateRefused: string[];
	/** Executions it started. */
	executions: number;
	/** The trigger's answers to its deliveries (status and body). */
	answers: string[];
}

/** Everything a case left behind. */
export interface Observation {
	executions: Execution[];
	/** Poll trigger: the scans that must come out once, and how many polls emitted each. */
	emitted?: { expected: number[]; times: Record<number, number> };
	/** Webhook trigger: every distinct result delivered. */
	delivered?: DeliveredResult[];
	/** Webhook trigger: a new result delivered after the case's steps (it must start an execution). */
	lastDelivery?: { status: number; executed: boolean; body: string };
	/**
	 * Webhook trigger: static-data writes by deliveries, webhooks at the trigger's URL after each
	 * activation, and API requests made while forged requests were handled (all must be 0 / 1).
	 */
	trigger?: { deliveryWrites: number; webhooksAtUrl: number[]; forgedRequests: number };
}
