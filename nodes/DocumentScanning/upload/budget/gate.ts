import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { httpStatusOf } from '../../../shared/transport';
import { limitStatusOf } from '../errors';
import type { CreatedScan } from './errors';
import { heldBackError, iso, limitHitError, stoppedError, withCreatedScans } from './errors';
import type { Hold, Plan } from './plan';
import { createdSince, UploadTokens } from './tokens';
import { HOUR_MS, readHourWindow } from './window';

interface Closed {
	status: number;
	cause: Error;
	/** The refusal came on a re-send after a lost answer: the cause's item may have been uploaded. */
	outcomeUnknown: boolean;
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

	private readonly tokens: UploadTokens | undefined;

	/** With a `plan` (Continue On Fail), uploads past what fits are held back as they come. */
	constructor(
		private readonly hourlyLimit: number,
		private readonly plan?: Plan & { serverNow: number },
	) {
		this.tokens = plan && new UploadTokens(plan);
	}

	get isClosed(): boolean {
		return this.closed !== undefined;
	}

	/** Throws the item's "not uploaded" error when the gate is closed. */
	async assertOpen(ctx: IExecuteFunctions, itemIndex: number): Promise<void> {
		if (!this.closed) return;
		throw stoppedError(ctx.getNode(), itemIndex, await this.closed.hold, this.closed.status);
	}

	/**
	 * Before an item's upload: throws its "not uploaded" error when the gate closed, or when
	 * nothing is left of the budget (with Continue On Fail). Pair with `settle`.
	 */
	async enter(ctx: IExecuteFunctions, itemIndex: number): Promise<void> {
		await this.assertOpen(ctx, itemIndex);
		if (!this.tokens || !this.plan) return;
		const hold = await this.tokens.acquire();
		if (hold) throw heldBackError(ctx.getNode(), itemIndex, this.plan, hold, this.hourlyLimit);
		if (this.closed) {
			this.tokens.release(false);
			await this.assertOpen(ctx, itemIndex);
		}
	}

	/** After an item's upload (entered): the scan it got, or its failure. */
	settle(
		itemIndex: number,
		fileName: string,
		outcome: { scan: IDataObject } | { error: unknown; sent: boolean },
	): void {
		if ('scan' in outcome) {
			this.created.push({ itemIndex, fileName, scanId: outcome.scan.id });
			this.tokens?.release(createdSince(outcome.scan, this.plan?.serverNow ?? 0));
			return;
		}
		// A refusal (4xx) charged nothing; a lost answer (5xx, network) may have.
		const status = httpStatusOf(outcome.error);
		this.tokens?.release(outcome.sent && (status === undefined || status >= 500));
	}

	/**
	 * After an upload failed: a 429 or 402 closes the gate (no hammering: the transport already
	 * waited once for a short Retry-After). Returns the error to give the item.
	 */
	async onFailure(ctx: IExecuteFunctions, itemIndex: number, error: unknown): Promise<unknown> {
		// The service's own refusal, or one of a re-send after a lost answer (the item's outcome is
		// then unknown: it may have been uploaded, so it is not marked "not uploaded" below).
		const refused = httpStatusOf(error);
		const status = refused ?? limitStatusOf(error);
		if (status !== 429 && status !== 402) return error;
		if (!this.closed) {
			this.closed = {
				status,
				cause: error as Error,
				outcomeUnknown: refused === undefined,
				itemIndex,
				hold:
					status === 402
						? Promise.resolve({ reason: 'credit', retryAfter: undefined })
						: this.nextSlot(ctx),
			};
		}
		// This item was sent and refused (no credit used): its own error, marked "not uploaded".
		if (
			refused !== undefined &&
			ctx.continueOnFail() &&
			(error instanceof NodeApiError || error instanceof NodeOperationError)
		) {
			const hold = await this.closed.hold;
			Object.assign(error.context, {
				notUploaded: true,
				reason: hold.reason,
				retryAfter: iso(hold.retryAfter),
			});
		}
		return error;
	}

	/** The error that stops the node (without Continue On Fail) once the gate closed. */
	async stopError(ctx: IExecuteFunctions, error: unknown): Promise<unknown> {
		// Nothing was created: the service's own refusal says it all.
		if (!this.closed || this.created.length === 0) return error;
		const { status, cause, itemIndex, hold, outcomeUnknown } = this.closed;
		const created = [...this.created].sort((a, b) => a.itemIndex - b.itemIndex);
		if (outcomeUnknown) return withCreatedScans(cause as NodeOperationError, created);
		return limitHitError(ctx.getNode(), cause, itemIndex, await hold, status, created);
	}

	/** When the next hourly slot frees up, from one fresh count; an hour from now when unknown. */
	private async nextSlot(ctx: IExecuteFunctions): Promise<Hold> {
		try {
			const window = await readHourWindow.call(ctx, this.hourlyLimit);
			const index = Math.max(0, window.times.length - this.hourlyLimit);
			const at =
				index < window.times.length ? window.times[index] + HOUR_MS : window.serverNow + HOUR_MS;
			return { reason: 'hourlyLimit', retryAfter: at };
		} catch {
			return { reason: 'hourlyLimit', retryAfter: undefined };
		}
	}
}
