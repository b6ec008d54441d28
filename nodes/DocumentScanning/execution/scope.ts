import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Pace } from '../../shared/pace';
import type { UploadGate } from '../upload/budget/gate';
import type { ScanPoller } from '../waiting/ScanPoller';
import type { ScanListings } from '../upload/scanListing';

/**
 * State shared by the items of one execution of the node. It lives only as long as that
 * execution (n8n may run executions in other processes, so nothing is kept in modules).
 */
export interface ExecutionScope {
	/** Scans already output by uploads of this execution. */
	claimedScanIds: Set<number>;
	/** Scans uploads of this execution got, by `templateId:sha256` of the file's bytes. */
	uploadedFiles: Map<string, IDataObject>;
	/** One listing of a template's scans per template, read when an item first needs it ("Return Existing Scan"). */
	scanListings: ScanListings;
	/** The one poller every scan waited for in this execution joins. */
	poller: ScanPoller;
	/** How many requests the execution has at the service at once (uploads and scan reads). */
	pace: Pace;
	/** Uploads only: closes after a limit was hit; keeps the scans the execution got. */
	uploadGate?: UploadGate;
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
export const DEFAULT_CONCURRENCY = 32;
export const MAX_CONCURRENCY = 64;
