import type { IExecuteFunctions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { batchTooLargeError } from './errors';
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
 * upload. With it, the gate lets uploads through while the budget lasts (the first items in
 * item order; a file the service already has gives its share back) and holds the others back
 * with "not uploaded" errors. A single document is checked only against a lower Hourly Upload
 * Limit: the service refuses it without charging. Returns the execution's upload gate.
 */
export async function checkBudget(
	this: IExecuteFunctions,
	ready: number[],
	hourlyLimit: number,
): Promise<UploadGate> {
	// One document needs no check (a refused upload uses no credit, and its error says why),
	// unless the node keeps to a lower hourly limit than the service's.
	if (ready.length === 0 || (ready.length === 1 && hourlyLimit >= SERVICE_HOURLY_LIMIT))
		return new UploadGate(hourlyLimit);
	const [balance, window] = await Promise.all([
		apiRequest.call(this, { method: 'GET', path: '/account' }),
		readHourWindow.call(this, hourlyLimit),
	]);
	const remaining = Number(balance.remaining_scans);
	const plan = planBudget(
		{
			credits:
				balance.remaining_scans !== null && Number.isFinite(remaining) ? remaining : undefined,
			hourlyLimit,
			serverNow: window.serverNow,
			times: window.times,
		},
		ready.length,
	);
	if (plan.fits === ready.length) return new UploadGate(hourlyLimit);
	if (!this.continueOnFail()) throw batchTooLargeError(this.getNode(), plan, hourlyLimit);
	return new UploadGate(hourlyLimit, { ...plan, serverNow: window.serverNow });
}
