/** Injected faults for API requests (matched on method and the path after /api/v1). */
import { FaultKind, FaultSpec } from '../types';

const KINDS: readonly FaultKind[] = [
	'status500',
	'drop',
	'latency',
	'dropAfterCommit',
	'status',
	'redirect',
	'hold',
];
const REDIRECTS = [301, 302, 303, 307, 308];

export interface ActiveFault {
	kind: FaultKind;
	status: number;
	headers: Record<string, string>;
	latencyMs: number;
	/** For 'redirect': which origin the Location names. */
	to: 'same' | 'other';
	/** An HTML page instead of the API's JSON error. */
	page: boolean;
}

interface StoredFault extends ActiveFault {
	method?: string;
	path?: RegExp;
	remaining: number;
	/** Matching requests still to let through before the fault applies. */
	skip: number;
}

export class Faults {
	private faults: StoredFault[] = [];
	/** Validates and queues a fault; throws on invalid input. */
	add(spec: FaultSpec): void {
		if (!KINDS.includes(spec.kind)) throw new Error(`kind must be one of ${KINDS.join(', ')}`);
		const times = spec.times ?? 1;
		if (!Number.isInteger(times) || times < 1) throw new Error('times must be a positive integer');
		const skip = spec.after ?? 0;
		if (!Number.isInteger(skip) || skip < 0)
			throw new Error('after must be a non-negative integer');
		const status =
			spec.kind === 'status500' ? 500 : (spec.status ?? (spec.kind === 'redirect' ? 302 : 500));
		if (!Number.isInteger(status) || status < 100 || status > 599)
			throw new Error('status must be an HTTP status code');
		if (spec.kind === 'redirect' && !REDIRECTS.includes(status))
			throw new Error(`a redirect's status must be one of ${REDIRECTS.join(', ')}`);
		const to = spec.to ?? 'same';
		if (to !== 'same' && to !== 'other') throw new Error("to must be 'same' or 'other'");
		if (spec.kind === 'status' && spec.status === undefined)
			throw new Error("kind 'status' needs a status");
		const latencyMs = spec.latencyMs ?? 0;
		if (!Number.isInteger(latencyMs) || latencyMs < 0)
			throw new Error('latencyMs must be a non-negative integer');
		let path: RegExp | undefined;
		try {
			path = spec.path === undefined ? undefined : new RegExp(spec.path);
		} catch {
			throw new Error(`path is not a valid regular expression: ${spec.path}`);
		}
		this.faults.push({
			kind: spec.kind,
			status,
			headers: { ...spec.headers },
			latencyMs,
			to,
			page: spec.page === true,
			method: spec.method?.toUpperCase(),
			path,
			remaining: times,
			skip,
		});
	}

	clear(): void {
		this.faults = [];
	}

	/** The first fault matching the request, consuming one of its uses. */
	take(method: string, path: string): ActiveFault | undefined {
		const fault = this.faults.find(
			(f) =>
				(f.method === undefined || f.method === method) &&
				(f.path === undefined || f.path.test(path)),
		);
		if (!fault) return undefined;
		if (fault.skip > 0) {
			fault.skip -= 1;
			return undefined;
		}
		fault.remaining -= 1;
		if (fault.remaining === 0) this.faults = this.faults.filter((f) => f !== fault);
		return {
			kind: fault.kind,
			status: fault.status,
			headers: fault.headers,
			latencyMs: fault.latencyMs,
			to: fault.to,
			page: fault.page,
		};
	}
}
