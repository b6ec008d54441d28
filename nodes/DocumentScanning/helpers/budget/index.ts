import type { IExecuteFunctions } from 'n8n-workflow';

import { apiRequest } from '../../transport';
import { batchTooLargeError, heldBackError } from './errors';
import { UploadGate } from './gate';
import { planBudget } from './plan';
import { readHourWindow } from './window';

export { UploadGate } from './gate';
export { planBudget } from './plan';
export type { Limits, Plan, Hold } from './plan';
export { HOUR_MS, inWindow, readHourWindow } from './window';

/** The service's limit: 200 scans per rolling hour per account. */
export const SERVICE_HOURLY_LIMIT = 200;

/**
 * Before the first upload of an execution: reads the credit (GET /account) and the uploads
 * of the last rolling hour (GET /scans, service clock), and decides which of the `ready`
 * items fit. Without Continue On Fail a batch that does not fit whole fails here, before any
 * upload. With it, the items that do not fit are returned with their "not uploaded" errors
 * (the first ones in item order go). A single document is not checked: the service refuses
 * it without charging. Returns the execution's upload gate.
 */
export async function checkBudget(
	this: IExecuteFunctions,
	ready: number[],
	hourlyLimit: number,
): Promise<{ gate: UploadGate; held: Map<number, Error> }> {
	const gate = new UploadGate(hourlyLimit);
	const held = new Map<number, Error>();
	// One document needs no check: a refused upload uses no credit, and its error says why.
	if (ready.length < 2) return { gate, held };
	const [balance, window] = await Promise.all([
		apiRequest.call(this, { method: 'GET', path: '/account' }),
		readHourWindow.call(this, hourlyLimit),
	]);
	const remaining = Number(balance.remaining_scans);
	const plan = planBudget(
		{
			credits: balance.remaining_scans !== null && Number.isFinite(remaining) ? remaining : undefined,
			hourlyLimit,
			serverNow: window.serverNow,
			times: window.times,
		},
		ready.length,
	);
	if (plan.fits === ready.length) return { gate, held };
	if (!this.continueOnFail()) throw batchTooLargeError(this.getNode(), plan, hourlyLimit);
	ready.forEach((itemIndex, position) => {
		const hold = plan.holdOf(position);
		if (hold) held.set(itemIndex, heldBackError(this.getNode(), itemIndex, plan, hold, hourlyLimit));
	});
	return { gate, held };
}
