/** Injected faults for API requests (matched on method and the path after /api/v1). */
import { FaultKind, FaultSpec } from '../types';

const KINDS: readonly FaultKind[] = [
	'status500',
	'drop',
	'latency',
	'dropAfterCommit',
	'status',
	'hold',
];

export interface ActiveFault {
	kind: FaultKind;
	status: number;
	headers: Record<string, string>;
	latencyMs: number;
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
	/** Requests a 'hold' fault keeps until release() (or clear()). */
	private held: Array<() => void> = [];

	/** Resolves when the held request may go on. */
	async hold(): Promise<void> {
		await new Promise<void>((resolve) => this.held.push(resolve));
	}

	/** Lets every held request go on; returns how many there were. */
	release(): number {
		const held = this.held.splice(0);
		for (const resume of held) resume();
		return held.length;
	}

	/** How many requests are held now. */
	get heldCount(): number {
		return this.held.length;
	}

	/** Validates and queues a fault; throws on invalid input. */
	add(spec: FaultSpec): void {
		if (!KINDS.includes(spec.kind)) throw new Error(`kind must be one of ${KINDS.join(', ')}`);
		const times = spec.times ?? 1;
		if (!Number.isInteger(times) || times < 1) throw new Error('times must be a positive integer');
		const skip = spec.after ?? 0;
		if (!Number.isInteger(skip) || skip < 0)
			throw new Error('after must be a non-negative integer');
		const status = spec.kind === 'status500' ? 500 : (spec.status ?? 500);
		if (!Number.isInteger(status) || status < 100 || status > 599)
			throw new Error('status must be an HTTP status code');
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
			method: spec.method?.toUpperCase(),
			path,
			remaining: times,
			skip,
		});
	}

	clear(): void {
		this.faults = [];
		this.release();
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
		};
	}
}
