/**
 * Signed webhook deliveries: one attempt per event, failure counting, automatic deactivation;
 * and, through the control surface only, a recorded delivery sent again (a service that
 * redelivers, e.g. after an answer it did not get).
 */
import http from 'node:http';
import https from 'node:https';
import { isoWithOffset, VirtualClock } from './clock';
import { ResolvedOptions } from './options';
import { Store } from './state';
import { FailedBody, failedEventBody } from './failed-bodies';
import { ScanRecord, WebhookRecord } from './records';
import { signatureHeader } from '../signing';
import { DeliveryRecord, WebhookEvent } from '../types';

export const FAILURES_BEFORE_DEACTIVATION = 10;

/** The event a terminal scan status sends, if any. */
export function eventForStatus(status: ScanRecord['status']): WebhookEvent | undefined {
	if (status === 'completed' || status === 'validation_failed') return 'scan.completed';
	if (status === 'failed') return 'scan.failed';
	return undefined;
}

export function buildEventBody(
	event: WebhookEvent,
	scan: ScanRecord,
	timestampMs: number,
	failed: { shape: FailedBody; webhookId: number } = { shape: 'scan_id', webhookId: 0 },
): Record<string, unknown> {
	const head = { event, timestamp: isoWithOffset(timestampMs) };
	// scan.failed: a body the API documentation does not show (engine/failed-bodies.ts).
	if (event === 'scan.failed') return failedEventBody(failed.shape, scan, head, failed.webhookId);
	const data = {
		scan_id: scan.id,
		filename: scan.filename,
		template_id: scan.templateId,
		status: scan.status,
		confidence: scan.confidence,
		extracted_data: scan.extractedData,
		validation_errors: scan.validationErrors ?? [],
		is_partial: scan.isPartial,
	};
	return { ...head, data };
}

/** The headers of a delivery, signed over exactly `body`. */
function signedHeaders(secret: string, event: WebhookEvent, body: string): Record<string, string> {
	return {
		'Content-Type': 'application/json',
		'User-Agent': 'DocumentScanningSandbox/1.0',
		'X-Service-Event': event,
		'X-Service-Signature': signatureHeader(secret, body),
	};
}

interface PostResult {
	status?: number;
	error?: string;
}

interface Waiter {
	count: number;
	resolve: (records: DeliveryRecord[]) => void;
	reject: (err: Error) => void;
	timer: NodeJS.Timeout;
}

export interface DelivererDeps {
	store: Store;
	clock: VirtualClock;
	options: () => ResolvedOptions;
}

export class Deliverer {
	private records: DeliveryRecord[] = [];
	private waiters: Waiter[] = [];
	private readonly inflight = new Set<http.ClientRequest>();
	/** Bumped by abortAll(); attempts started in an older generation leave no trace. */
	private generation = 0;

	constructor(private readonly deps: DelivererDeps) {}

	/** Fire-and-forget: the scan's event to every active webhook of its account subscribed to it. */
	dispatchForScan(scan: ScanRecord): void {
		const event = eventForStatus(scan.status);
		if (!event) return;
		for (const webhook of this.deps.store.webhooksOf(scan.accountId)) {
			if (webhook.active && webhook.events.includes(event)) void this.send(webhook, event, scan);
		}
	}

	/** One attempt now, regardless of the webhook's subscriptions; resolves when the attempt is recorded. */
	send(webhook: WebhookRecord, event: WebhookEvent, scan: ScanRecord): Promise<DeliveryRecord> {
		const { failedBody, deliveryLateMs } = this.deps.options();
		// A late delivery (option deliveryLateMs) carries the time its event happened, not now.
		const body = JSON.stringify(
			buildEventBody(event, scan, this.deps.clock.now() - deliveryLateMs, {
				shape: failedBody,
				webhookId: webhook.id,
			}),
		);
		return this.attempt({
			webhookId: webhook.id,
			scanId: scan.id,
			url: webhook.url,
			event,
			body,
			headers: signedHeaders(webhook.secret, event, body),
		});
	}

	/**
	 * Sends recorded delivery `index` (of list()) again, `copies` times at the same moment: the
	 * same bytes and headers, or with `restamp` the same body with a new `timestamp`, signed
	 * again with the webhook's secret (the two ways a service may redeliver). Each copy is an
	 * attempt like any other (failure count, log), marked `repeatOf: index`.
	 */
	async repeat(
		index: number,
		{ restamp = false, copies = 1 }: { restamp?: boolean; copies?: number } = {},
	): Promise<DeliveryRecord[]> {
		const original = this.records[index];
		if (original === undefined) throw new Error(`No delivery ${index} to repeat`);
		if (!Number.isInteger(copies) || copies < 1 || copies > 100)
			throw new Error('copies must be an integer from 1 to 100');
		let { body, headers } = original;
		if (restamp) {
			const webhook = this.deps.store.webhook(original.webhookId);
			if (!webhook) throw new Error(`Webhook ${original.webhookId} is gone`);
			const parsed = JSON.parse(body) as Record<string, unknown>;
			parsed.timestamp = isoWithOffset(this.deps.clock.now());
			body = JSON.stringify(parsed);
			headers = signedHeaders(webhook.secret, original.event, body);
		}
		const attempt = (original.attempt ?? 1) + 1;
		return await Promise.all(
			Array.from({ length: copies }, () =>
				this.attempt({ ...original, body, headers: { ...headers }, repeatOf: index, attempt }),
			),
		);
	}

	/** Posts one delivery and records it (unless abortAll() came in between). */
	private attempt(
		delivery: Pick<
			DeliveryRecord,
			'webhookId' | 'scanId' | 'url' | 'event' | 'body' | 'headers' | 'repeatOf' | 'attempt'
		>,
	): Promise<DeliveryRecord> {
		const generation = this.generation;
		const started = Date.now();
		return this.post(delivery.url, delivery.body, delivery.headers).then((result) => {
			const success = result.status !== undefined && result.status >= 200 && result.status < 300;
			const record: DeliveryRecord = {
				webhookId: delivery.webhookId,
				scanId: delivery.scanId,
				url: delivery.url,
				event: delivery.event,
				...result,
				success,
				body: delivery.body,
				headers: delivery.headers,
				durationMs: Date.now() - started,
				...(delivery.repeatOf === undefined
					? {}
					: { repeatOf: delivery.repeatOf, attempt: delivery.attempt }),
			};
			if (generation === this.generation) this.record(record);
			return record;
		});
	}

	list(): DeliveryRecord[] {
		return this.records.map((r) => ({ ...r, headers: { ...r.headers } }));
	}

	clear(): void {
		this.records = [];
	}

	/** Resolves once at least `count` attempts have been recorded (since the last clear/reset). */
	waitFor(count: number, timeoutMs = 20_000): Promise<DeliveryRecord[]> {
		if (this.records.length >= count) return Promise.resolve(this.list());
		return new Promise((resolve, reject) => {
			const waiter: Waiter = {
				count,
				resolve,
				reject,
				timer: setTimeout(() => {
					this.waiters = this.waiters.filter((w) => w !== waiter);
					reject(
						new Error(
							`Expected ${count} deliveries within ${timeoutMs} ms, got ${this.records.length}`,
						),
					);
				}, timeoutMs),
			};
			this.waiters.push(waiter);
		});
	}

	/** Aborts attempts in flight (they are not recorded), forgets records and fails pending waits. */
	abortAll(reason: string): void {
		this.generation += 1;
		for (const req of this.inflight) req.destroy(new Error(reason));
		this.inflight.clear();
		this.records = [];
		for (const waiter of this.waiters) {
			clearTimeout(waiter.timer);
			waiter.reject(new Error(`Waiting for deliveries stopped: ${reason}`));
		}
		this.waiters = [];
	}

	private record(record: DeliveryRecord): void {
		const { store, clock } = this.deps;
		const webhook = store.webhook(record.webhookId);
		if (webhook) {
			webhook.lastDeliveryAt = clock.now();
			if (record.success) webhook.failureCount = 0;
			else {
				webhook.failureCount += 1;
				if (webhook.failureCount >= FAILURES_BEFORE_DEACTIVATION) webhook.active = false;
			}
			store.addLog({
				webhookId: webhook.id,
				scanId: record.scanId,
				event: record.event,
				url: record.url,
				statusCode: record.status ?? null,
				success: record.success,
				error: record.error ?? (record.success ? null : `HTTP ${record.status}`),
				durationMs: record.durationMs,
				attempt: record.attempt ?? 1,
			});
		}
		this.records.push(record);
		const ready = this.waiters.filter((w) => this.records.length >= w.count);
		this.waiters = this.waiters.filter((w) => this.records.length < w.count);
		for (const waiter of ready) {
			clearTimeout(waiter.timer);
			waiter.resolve(this.list());
		}
	}

	/** POST with a timeout; redirects are not followed (a 3xx counts as a failure). */
	private post(url: string, body: string, headers: Record<string, string>): Promise<PostResult> {
		return new Promise((resolve) => {
			let target: URL;
			try {
				target = new URL(url);
			} catch {
				resolve({ error: 'Invalid URL' });
				return;
			}
			const { deliveryTimeoutMs, allowInsecureWebhookUrls } = this.deps.options();
			let settled = false;
			const finish = (result: PostResult): void => {
				if (settled) return;
				settled = true;
				clearTimeout(timer);
				resolve(result);
			};
			const client = target.protocol === 'https:' ? https : http;
			const req = client.request(
				target,
				{
					method: 'POST',
					headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
					agent: false,
					// With insecure URLs allowed (local work), self-signed receiver certificates are accepted too.
					rejectUnauthorized: !allowInsecureWebhookUrls,
				},
				(res) => {
					res.resume();
					finish({ status: res.statusCode });
				},
			);
			const timer = setTimeout(
				() => req.destroy(new Error(`No reply within ${deliveryTimeoutMs} ms`)),
				deliveryTimeoutMs,
			);
			req.on('error', (err) => finish({ error: err.message }));
			req.on('close', () => this.inflight.delete(req));
			this.inflight.add(req);
			req.end(body);
		});
	}
}
