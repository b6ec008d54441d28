import type { IExecuteFunctions } from 'n8n-workflow';

import type { RequestPace } from '../../../shared/pace';
import { heldBackError, stoppedError } from './errors';
import type { Hold, Plan } from './plan';
import { planBudget, slotFreeAt } from './plan';
import { readHourWindow } from './window';

interface Closed {
	status: 429 | 402;
	/** When a retry can succeed: looked up once, after the gate closed. */
	hold: Promise<Hold>;
}

/**
 * The limits of one execution's uploads, as a gate each upload passes before it is sent:
 * - once the service refuses an upload for a limit (429 or 402), no further upload is sent
 *   (uploads in flight finish): checked when the pace gives an upload its place, and closed as a
 *   refusal arrives, before that place goes to another (`paced`);
 * - with a `plan` that does not fit (Continue On Fail), uploads take a share of what is left and
 *   give it back when nothing was charged; when none is left and none is in flight, the item is
 *   held back with the time its slot is free for certain.
 */
export class LimitsGate {
	private closed: Closed | undefined;
	private left: number;
	private inFlight = 0;
	private heldForHour = 0;
	private charged = 0;
	private waiters: Array<() => void> = [];
	/** Creation times of the window's uploads and this execution's, oldest first (service clock). */
	private readonly times: number[];

	constructor(
		private readonly hourlyLimit: number,
		private readonly plan?: Plan,
		windowTimes: number[] = [],
	) {
		this.left = plan?.fits ?? Infinity;
		this.times = [...windowTimes];
	}

	get closedStatus(): 429 | 402 | undefined {
		return this.closed?.status;
	}

	/** Resolves once the upload may be sent, else throws its "not uploaded" error; then `settle`. */
	async enter(ctx: IExecuteFunctions, itemIndex: number): Promise<void> {
		for (;;) {
			if (this.closed) {
				throw stoppedError(ctx.getNode(), itemIndex, await this.closed.hold, this.closed.status);
			}
			if (this.left > 0) {
				this.left--;
				this.inFlight++;
				return;
			}
			if (this.inFlight === 0 && this.plan) {
				throw heldBackError(ctx.getNode(), itemIndex, this.plan, this.holdNext(), this.hourlyLimit);
			}
			await new Promise<void>((resolve) => this.waiters.push(resolve));
		}
	}

	/** After an item's upload (entered): whether it may have used a slot and a credit, and when. */
	settle(charged: boolean, createdAt?: number): void {
		this.inFlight--;
		if (charged) {
			this.charged++;
			if (createdAt !== undefined) this.addTime(createdAt);
		} else {
			this.left++;
		}
		this.wake();
	}

	/** A 429 or 402: no further upload is sent. Returns when a retry can succeed. */
	async refused(ctx: IExecuteFunctions, status: 429 | 402): Promise<Hold> {
		return await this.close(ctx, status).hold;
	}

	/**
	 * The execution's pace as one upload's POSTs see it: a place is taken only while the gate is
	 * open, and a 429 or 402 closes the gate as it arrives, before its place goes to another.
	 */
	paced(ctx: IExecuteFunctions, itemIndex: number, pace: RequestPace): RequestPace {
		const acquire = async () => {
			const slot = await pace.acquire();
			if (this.closed) {
				slot.release();
				throw stoppedError(ctx.getNode(), itemIndex, await this.closed.hold, this.closed.status);
			}
			return {
				done: (answer: Parameters<typeof slot.done>[0]) => {
					if (answer.status === 429 || answer.status === 402) this.close(ctx, answer.status);
					slot.done(answer);
				},
				release: () => slot.release(),
			};
		};
		return Object.defineProperty({ acquire }, 'credential', {
			get: () => pace.credential,
			set: (value: RequestPace['credential']) => (pace.credential = value),
		});
	}

	private close(ctx: IExecuteFunctions, status: 429 | 402): Closed {
		if (!this.closed) {
			this.closed = {
				status,
				hold:
					status === 402
						? Promise.resolve({ reason: 'credit', retryAfter: undefined })
						: this.nextSlot(ctx),
			};
			this.wake();
		}
		return this.closed;
	}

	/** Lets every waiting upload look again. */
	private wake(): void {
		const waiters = this.waiters;
		this.waiters = [];
		for (const wake of waiters) wake();
	}

	private addTime(at: number): void {
		const index = this.times.findIndex((time) => time > at);
		this.times.splice(index === -1 ? this.times.length : index, 0, at);
	}

	/** Why the next item waits, in the order items are held. */
	private holdNext(): Hold {
		const plan = this.plan!;
		if (plan.credits !== undefined && this.charged >= plan.credits)
			return { reason: 'credit', retryAfter: undefined };
		return {
			reason: 'hourlyLimit',
			retryAfter: slotFreeAt(this.times, this.hourlyLimit, this.heldForHour++),
		};
	}

	/** When the next hourly slot is free for certain, from one fresh count; undefined when unknown. */
	private async nextSlot(ctx: IExecuteFunctions): Promise<Hold> {
		return { reason: 'hourlyLimit', retryAfter: (await this.count(ctx, 1))?.nextSlotAt };
	}

	/** When `documents` more uploads all fit, from a fresh count; undefined: never, or unknown. */
	async allFitAt(ctx: IExecuteFunctions, documents: number): Promise<number | undefined> {
		return (await this.count(ctx, documents))?.allFitAt;
	}

	private async count(ctx: IExecuteFunctions, documents: number): Promise<Plan | undefined> {
		const window = await readHourWindow.call(ctx).catch(() => undefined);
		if (window === undefined) return undefined;
		return planBudget({ ...window, credits: undefined, hourlyLimit: this.hourlyLimit }, documents);
	}
}
