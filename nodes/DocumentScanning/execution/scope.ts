import type { INodeExecutionData } from 'n8n-workflow';

import type { Pace } from '../../shared/pace';
import type { ScanPoller } from '../waiting/ScanPoller';

/**
 * State shared by the items of one execution of the node. It lives only as long as that
 * execution (n8n may run executions in other processes, so nothing is kept in modules).
 * `state` is the operation's own (e.g. the execution's uploads), made by its `createState`.
 */
export interface ExecutionScope<State = undefined> {
	/** The one poller every scan waited for in this execution joins. */
	poller: ScanPoller;
	/** How many requests the execution has at the service at once (uploads and scan reads). */
	pace: Pace;
	state: State;
}

/**
 * What an operation returns when its item still has to wait (for a scan): the request slot
 * is freed at once and the router collects `later` after all requests were sent.
 */
export interface Deferred {
	later: Promise<INodeExecutionData[]>;
}

export function isDeferred(value: INodeExecutionData[] | Deferred): value is Deferred {
	return !Array.isArray(value) && value.later instanceof Promise;
}

/**
 * The option "Concurrency": the most requests (uploads, scan reads) or items at the service at
 * once. The execution starts at 5 (`START_WINDOW` of shared/pace.ts) and grows toward it while
 * the service answers quickly.
 */
export const DEFAULT_CONCURRENCY = 64;
export const MAX_CONCURRENCY = 64;

/** The default a saved workflow gets (it stores none): node version 1 keeps its 5. */
export function defaultConcurrency(typeVersion: number): number {
	return typeVersion >= 1.1 ? DEFAULT_CONCURRENCY : 5;
}
