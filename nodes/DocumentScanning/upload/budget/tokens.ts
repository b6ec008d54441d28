import type { IDataObject } from 'n8n-workflow';

import type { Hold, Plan } from './plan';

/**
 * The uploads a batch may still spend, as a semaphore: an upload takes one before it is sent
 * and gives it back when the service charged nothing (a 409 "already uploaded", a 4xx), so a
 * re-run whose files the service already has does not hold back the new ones. When none is
 * left and none is in flight, the item is held back with the plan's retry time, in the order
 * the items asked.
 */
export class UploadTokens {
	private left: number;
	private inFlight = 0;
	private held = 0;
	private waiters: Array<() => void> = [];

	constructor(private readonly plan: Plan) {
		this.left = plan.fits;
	}

	/** Resolves to undefined once the item may upload, or to why it must wait. */
	async acquire(): Promise<Hold | undefined> {
		for (;;) {
			if (this.left > 0) {
				this.left--;
				this.inFlight++;
				return undefined;
			}
			if (this.inFlight === 0) return this.plan.holdOf(this.plan.fits + this.held++);
			await new Promise<void>((resolve) => this.waiters.push(resolve));
		}
	}

	/** The upload ended; `charged` when it may have used a slot and a credit. */
	release(charged: boolean): void {
		this.inFlight--;
		if (!charged) this.left++;
		const waiters = this.waiters;
		this.waiters = [];
		for (const wake of waiters) wake();
	}
}

/** Whether a scan an upload returned was created now (charged) rather than found from before. */
export function createdSince(scan: IDataObject, serverStart: number): boolean {
	const created = typeof scan.created_at === 'string' ? Date.parse(scan.created_at) : NaN;
	// Whole seconds on the service, and the count was read just before: one second of allowance.
	return !Number.isFinite(created) || created >= serverStart - 1000;
}
