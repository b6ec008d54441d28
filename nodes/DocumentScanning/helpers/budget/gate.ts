import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { httpStatusOf } from '../../transport';
import type { CreatedScan } from './errors';
import { iso, limitHitError, stoppedError } from './errors';
import type { Hold } from './plan';
import { HOUR_MS, readHourWindow } from './window';

interface Closed {
	status: number;
	cause: Error;
	itemIndex: number;
	/** When a retry can succeed: looked up once, after the gate closed. */
	hold: Promise<Hold>;
}

/**
 * The upload gate of one execution: once an upload is refused for a limit (429 or 402), no
 * further upload is sent in this execution; uploads in flight finish. It also keeps the scans
 * the execution got, so the error that stops the node can name them. Lives in the execution
 * scope only (never in a module).
 */
export class UploadGate {
	private closed: Closed | undefined;
	readonly created: CreatedScan[] = [];

	constructor(private readonly hourlyLimit: number) {}

	get isClosed(): boolean {
		return this.closed !== undefined;
	}

	/** Throws the item's "not uploaded" error when the gate is closed. */
	async assertOpen(ctx: IExecuteFunctions, itemIndex: number): Promise<void> {
		if (!this.closed) return;
		throw stoppedError(ctx.getNode(), itemIndex, await this.closed.hold, this.closed.status);
	}

	record(itemIndex: number, fileName: string, scan: IDataObject): void {
		this.created.push({ itemIndex, fileName, scanId: scan.id });
	}

	/**
	 * After an upload failed: a 429 or 402 closes the gate (no hammering: the transport already
	 * waited once for a short Retry-After). Returns the error to give the item.
	 */
	async onFailure(ctx: IExecuteFunctions, itemIndex: number, error: unknown): Promise<unknown> {
		const status = httpStatusOf(error);
		if (status !== 429 && status !== 402) return error;
		if (!this.closed) {
			this.closed = {
				status,
				cause: error as Error,
				itemIndex,
				hold: status === 402 ? Promise.resolve({ reason: 'credit', retryAfter: undefined }) : this.nextSlot(ctx),
			};
		}
		// This item was sent and refused (no credit used): its own error, marked "not uploaded".
		if (ctx.continueOnFail() && (error instanceof NodeApiError || error instanceof NodeOperationError)) {
			const hold = await this.closed.hold;
			Object.assign(error.context, { notUploaded: true, reason: hold.reason, retryAfter: iso(hold.retryAfter) });
		}
		return error;
	}

	/** The error that stops the node (without Continue On Fail) once the gate closed. */
	async stopError(ctx: IExecuteFunctions, error: unknown): Promise<unknown> {
		// Nothing was created: the service's own refusal says it all.
		if (!this.closed || this.created.length === 0) return error;
		const { status, cause, itemIndex, hold } = this.closed;
		const created = [...this.created].sort((a, b) => a.itemIndex - b.itemIndex);
		return limitHitError(ctx.getNode(), cause, itemIndex, await hold, status, created);
	}

	/** When the next hourly slot frees up, from one fresh count; an hour from now when unknown. */
	private async nextSlot(ctx: IExecuteFunctions): Promise<Hold> {
		try {
			const window = await readHourWindow.call(ctx, this.hourlyLimit);
			const index = Math.max(0, window.times.length - this.hourlyLimit);
			const at = index < window.times.length ? window.times[index] + HOUR_MS : window.serverNow + HOUR_MS;
			return { reason: 'hourlyLimit', retryAfter: at };
		} catch {
			return { reason: 'hourlyLimit', retryAfter: undefined };
		}
	}
}
