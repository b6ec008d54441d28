/**
 * The pace of one execution: how many requests it has at the service at once. A window, as in
 * TCP's congestion control: it starts at `START_WINDOW` (at most the cap, the node's
 * "Concurrency") and grows by one per quick answer (doubling per round), after the first sign
 * of strain by one per window of them; a 429, a 5xx, a lost answer or a slow one halves it,
 * once per window (requests sent before the last halving do not halve it again). Slow: more
 * than `SLOW_RATIO` times the quickest answer of its kind and `SLOW_MARGIN_MS` beyond it.
 * One instance per execution, in its scope; it also keeps the execution's credential.
 */
import type { ICredentialsDecrypted } from 'n8n-workflow';

/** The window before any answer came (the node's old fixed default). */
export const START_WINDOW = 5;
export const SLOW_RATIO = 4;
export const SLOW_MARGIN_MS = 500;

/** How one request ended, as the pace judges it. */
export interface Answer {
	/** Requests of one kind are compared with each other, e.g. "GET /scans/{id}". */
	kind: string;
	ms: number;
	/** HTTP status of the answer; absent when none came. */
	status?: number;
	/** No answer came and the service may be the cause (timeout, dropped connection). */
	lost?: boolean;
}

export interface PaceSlot {
	/** The request ended: frees the place and lets the answer steer the window. */
	done(answer: Answer): void;
	/** The request ended in a way that says nothing about the service (e.g. cancelled). */
	release(): void;
}

/** What a request needs of the pace: a place before it is sent. */
export interface RequestPace {
	acquire(): Promise<PaceSlot>;
	/**
	 * The credential and its base URL, read by the transport at the execution's first paced
	 * request and kept for its others: n8n otherwise loads and decrypts the credential from its
	 * database for every request, one after the other, which bounds a batch's uploads.
	 */
	credential?: Promise<ExecutionCredential>;
}

/** The node's credential as read once for an execution. */
export interface ExecutionCredential {
	baseUrl: string;
	decrypted: ICredentialsDecrypted;
}

export class Pace implements RequestPace {
	private window: number;
	private threshold: number;
	private inFlight = 0;
	private sent = 0;
	/** Sequence number of the last request sent before the last halving. */
	private halvedAfter = 0;
	private readonly quickest = new Map<string, number>();
	private waiting: Array<() => void> = [];
	credential?: Promise<ExecutionCredential>;
	/** The largest window reached, and every halving (for the docs' figures and tests). */
	peak: number;
	halvings = 0;

	constructor(
		readonly cap: number,
		start = START_WINDOW,
	) {
		this.cap = Math.max(1, Math.floor(cap) || 1);
		this.window = Math.min(this.cap, Math.max(1, Math.floor(start) || 1));
		this.threshold = this.cap;
		this.peak = this.window;
	}

	/** Requests allowed at the service at once now. */
	get size(): number {
		return Math.floor(this.window);
	}

	async acquire(): Promise<PaceSlot> {
		while (this.inFlight >= this.size) {
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		}
		this.inFlight++;
		const sequence = ++this.sent;
		let open = true;
		const end = (answer?: Answer) => {
			if (!open) return;
			open = false;
			this.inFlight--;
			if (answer) this.learn(sequence, answer);
			this.wake();
		};
		return { done: (answer) => end(answer), release: () => end() };
	}

	/** Whether an answer is slow against the quickest of its kind so far. */
	isSlow(answer: Answer): boolean {
		const quickest = this.quickest.get(answer.kind);
		if (quickest === undefined) return false;
		return answer.ms > Math.max(SLOW_RATIO * quickest, quickest + SLOW_MARGIN_MS);
	}

	private learn(sequence: number, answer: Answer): void {
		const status = answer.status;
		const refused = status === 429 || (status !== undefined && status >= 500);
		const strained = answer.lost === true || refused || this.isSlow(answer);
		if (status !== undefined && !refused) {
			const quickest = this.quickest.get(answer.kind);
			if (quickest === undefined || answer.ms < quickest) this.quickest.set(answer.kind, answer.ms);
		}
		if (strained) {
			if (sequence <= this.halvedAfter) return;
			this.threshold = Math.max(1, Math.floor(this.window / 2));
			this.window = this.threshold;
			this.halvedAfter = this.sent;
			this.halvings++;
			return;
		}
		if (answer.lost === true || status === undefined) return;
		this.window = Math.min(
			this.cap,
			this.window < this.threshold ? this.window + 1 : this.window + 1 / this.size,
		);
		this.peak = Math.max(this.peak, this.size);
	}

	/** Lets waiting requests look again (in the order they came). */
	private wake(): void {
		const waiting = this.waiting;
		this.waiting = [];
		for (const resolve of waiting) resolve();
	}
}
