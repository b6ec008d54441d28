import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { pause } from '../../shared/pause';

import { mapWithConcurrency } from '../../shared/concurrency';
import type { Pace } from '../../shared/pace';
import { FINAL_STATUSES, isFullScan } from '../../shared/scans/status';
import { failedScanError, timeoutError } from './waitErrors';
import type { WaitSettings } from './pollSettings';
import { MAX_TIMER_MS } from './pollSettings';
import { Schedule } from './schedule';
import { readScan, readStatuses } from './requests';

/** With this many scans waiting or more, one listing is cheaper than a read per scan. */
export const LIST_THRESHOLD = 3;
/** A request failing this close to its item's deadline was cut by it. */
const DEADLINE_SLACK_MS = 50;
/** Requests of one round sent at the same time without a pace (with one: as many as it allows). */
const ROUND_CONCURRENCY = 10;

export interface WaitRequest {
	scanId: number;
	itemIndex: number;
	settings: WaitSettings;
	/** Template of the scan, when known: lets the poller follow it through GET /scans. */
	templateId?: number;
	/** The last record read (e.g. the upload's creation object). */
	initial?: IDataObject;
}

interface Entry extends WaitRequest {
	joinedAt: number;
	deadline: number;
	due: number;
	last: IDataObject;
	resolve: (scan: IDataObject) => void;
	reject: (error: unknown) => void;
}

/**
 * One poller per execution of the node: every scan to be waited for joins it, and it
 * follows all of them together.
 *
 * - Each scan has its own schedule (see `nextGapMs`); a round starts when the earliest is due.
 * - Few scans waiting: `GET /scans/{id}` for each due one; that read is the full scan.
 * - `LIST_THRESHOLD` or more: `GET /scans?template_id=…` (newest first), a page more than the
 *   waiting scans fill, covers every waiting scan of that template at once; a scan seen final
 *   there is output as listed when its record has every field of a scan, else read once with
 *   `GET /scans/{id}` (the spec does not say whether listed records are whole). Scans not on
 *   those pages (older ones) are read one by one.
 * - Wait Timeout and cancelling hold at any moment, also while a request is in flight or the
 *   transport waits out a Retry-After: every item fails at its own deadline.
 *
 * The poller lives only as long as its execution; nothing is kept in modules.
 */
export class ScanPoller {
	private readonly entries = new Set<Entry>();
	private readonly schedule = new Schedule();
	private running = false;
	/** The loop and its current round: `stop()` waits for both. */
	private loop: Promise<void> = Promise.resolve();
	private currentRound: Promise<unknown> = Promise.resolve();
	private stopped = false;
	private nap?: AbortController;
	private readonly signal?: AbortSignal;

	/** `pace`: the execution's pace, which every read of the poller waits for and steers. */
	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly pace?: Pace,
	) {
		this.signal = ctx.getExecutionCancelSignal?.();
		this.signal?.addEventListener('abort', () => this.wake(), { once: true });
	}

	/** Resolves with the final scan (completed / validation_failed); rejects per item. */
	async wait(request: WaitRequest): Promise<IDataObject> {
		return await new Promise<IDataObject>((resolve, reject) => {
			const now = Date.now();
			const entry: Entry = {
				...request,
				joinedAt: now,
				deadline: now + request.settings.timeoutMs,
				due: now + request.settings.firstDelayMs,
				last: request.initial ?? { id: request.scanId, status: 'unknown' },
				resolve,
				reject,
			};
			this.entries.add(entry);
			if (!this.running) {
				this.running = true;
				this.loop = this.run();
			} else {
				this.wake();
			}
		});
	}

	/**
	 * Stops following scans (the node failed, or all are settled); waiting items are left
	 * unsettled. Resolves once the loop and its round have ended: no read outlives the execution.
	 */
	async stop(): Promise<void> {
		this.stopped = true;
		this.entries.clear();
		this.wake();
		await this.loop;
		await this.currentRound;
	}

	private wake(): void {
		this.nap?.abort();
	}

	/** The loop; `running` is cleared in the same turn it ends, so a later join starts a new one. */
	private async run(): Promise<void> {
		try {
			while (this.entries.size > 0 && !this.stopped) {
				if (this.settleDeadlines()) break;
				const nextDue = Math.min(...[...this.entries].map((entry) => entry.due));
				const now = Date.now();
				if (nextDue > now) {
					await this.sleepUntil(nextDue);
					continue;
				}
				const work = this.round(now);
				this.currentRound = work.catch(() => undefined);
				await this.during(work);
			}
		} catch (error) {
			// A fault of the poller itself: no item may be left waiting for ever.
			for (const entry of this.entries) entry.reject(error);
			this.entries.clear();
		} finally {
			this.running = false;
		}
	}

	/** Fails items past their deadline, or all items on cancel; true when cancelled. */
	private settleDeadlines(): boolean {
		const cancelled = this.signal?.aborted === true;
		const now = Date.now();
		for (const entry of [...this.entries]) {
			if (cancelled || entry.deadline <= now) {
				this.entries.delete(entry);
				entry.reject(timeoutError(this.ctx, entry, cancelled));
			}
		}
		return cancelled;
	}

	/** Sleeps until `until` or the nearest deadline, woken early by a join, a stop or a cancel. */
	private async sleepUntil(until: number, work?: Promise<void>): Promise<void> {
		const deadlines = [...this.entries].map((entry) => entry.deadline);
		const ms = Math.min(until, ...deadlines) - Date.now();
		if (ms <= 0) return;
		const nap = new AbortController();
		this.nap = nap;
		const sleeping = pause(Math.min(ms, MAX_TIMER_MS), nap.signal).catch(() => undefined);
		await Promise.race(work ? [sleeping, work] : [sleeping]);
		nap.abort();
	}

	/** Waits for a round of requests while keeping every item's deadline. */
	private async during(work: Promise<void>): Promise<void> {
		let finished = false;
		const tracked = work.then(() => {
			finished = true;
		});
		while (!finished) {
			if (this.settleDeadlines() || this.entries.size === 0 || this.stopped) return;
			await this.sleepUntil(Number.POSITIVE_INFINITY, tracked);
		}
	}

	/** One round: reads the due scans (or lists all waiting ones) and settles the final ones. */
	private async round(now: number): Promise<void> {
		const waiting = [...this.entries];
		const byId: Entry[] = [];
		const groups = new Map<number, Entry[]>();
		for (const entry of waiting) {
			if (waiting.length >= LIST_THRESHOLD && entry.templateId !== undefined) {
				groups.set(entry.templateId, [...(groups.get(entry.templateId) ?? []), entry]);
			} else if (entry.due <= now) {
				byId.push(entry);
			}
		}

		const finals: Entry[] = [];
		for (const [templateId, group] of groups) {
			const deadline = Math.max(...group.map((entry) => entry.deadline));
			const seen = await readStatuses
				.call(this.ctx, templateId, new Set(group.map((e) => e.scanId)), deadline, this.pace)
				.catch(() => new Map<number, IDataObject>());
			for (const entry of group) {
				const listed = seen.get(entry.scanId);
				if (!listed) {
					if (entry.due <= now) byId.push(entry);
					continue;
				}
				entry.last = listed;
				if (!FINAL_STATUSES.has(String(listed.status))) this.reschedule(entry);
				// A listed record with every field of a scan is the scan; otherwise it is read whole.
				else if (isFullScan(listed)) this.settle(entry, listed);
				else {
					this.finished(entry, listed);
					finals.push(entry);
				}
			}
		}

		// Scans read one by one: few waiting, no template known, or not on the listed pages;
		// and the full record of every scan the listing showed final without every field.
		await mapWithConcurrency(
			byId.length + finals.length,
			this.pace?.cap ?? ROUND_CONCURRENCY,
			async (index) => {
				const entry = index < byId.length ? byId[index] : finals[index - byId.length];
				if (!this.entries.has(entry)) return;
				try {
					const scan = await readScan.call(
						this.ctx,
						entry.scanId,
						entry.itemIndex,
						entry.deadline,
						this.pace,
					);
					this.settle(entry, scan);
				} catch (error) {
					this.fail(entry, error);
				}
			},
			false,
		);
	}

	/** A scan seen final: its time teaches the schedule (a failed one says little of processing). */
	private finished(entry: Entry, scan: IDataObject): void {
		if (scan.status !== 'failed')
			this.schedule.finished(entry.templateId, Date.now() - entry.joinedAt);
	}

	private reschedule(entry: Entry): void {
		entry.due = this.schedule.nextRead(entry.settings, entry, Date.now());
	}

	private settle(entry: Entry, scan: IDataObject): void {
		if (!this.entries.has(entry)) return;
		entry.last = scan;
		if (!FINAL_STATUSES.has(String(scan.status))) {
			this.reschedule(entry);
			return;
		}
		this.entries.delete(entry);
		this.finished(entry, scan);
		if (scan.status === 'failed')
			entry.reject(failedScanError(this.ctx, entry.scanId, scan, entry.itemIndex));
		else entry.resolve(scan);
	}

	private fail(entry: Entry, error: unknown): void {
		if (!this.entries.has(entry)) return;
		// A request cut short by the deadline (timers may fire a little early) or by a cancel:
		// the item stays until the deadline check fails it with the timeout / cancel wording.
		if (this.signal?.aborted || Date.now() >= entry.deadline - DEADLINE_SLACK_MS) {
			this.reschedule(entry);
			this.settleDeadlines();
			return;
		}
		this.entries.delete(entry);
		entry.reject(error);
	}
}
