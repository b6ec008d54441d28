/** In-process control surface for tests (the same actions are exposed over HTTP by control/routes.ts). */
import { createHash } from 'node:crypto';
import { isoWithOffset, isoZulu } from '../engine/clock';
import type { SeedUploadsInput, TakeAfterInput } from '../engine/competition';
import { SandboxCore } from '../engine/core';
import type { RewriteSetting } from '../engine/rewrites';
import { describeOptions } from '../engine/options';
import { ActivityControl, createActivityControl } from './activity';
import { createListingControl, ListingControl } from './listing';
import { applyResult, sampleScan } from '../engine/processing';
import { AccountRecord, DEFAULT_API_KEY, ScanRecord, WebhookRecord } from '../engine/records';
import {
	AccountSnapshot,
	CreateAccountInput,
	CreateTemplateInput,
	DeliveryRecord,
	EXTRACTION_MODES,
	FaultSpec,
	OUTCOMES,
	Outcome,
	ScanStatus,
	RequestLogEntry,
	SandboxOptions,
	SCAN_STATUSES,
	SeedScansInput,
	TemplateView,
	WEBHOOK_EVENTS,
	WebhookEvent,
} from '../types';

export interface SandboxControl extends ListingControl, ActivityControl {
	/** Wipes all state and reseeds; options go back to the start options, then `options` apply. */
	reset(options?: Partial<SandboxOptions>): void;
	/** Changes live options (envelope, activeFlag, errorsShape, processingDelayMs, rateLimitPerHour, retryAfter, allowInsecureWebhookUrls, deliveryTimeoutMs, log). */
	setOptions(partial: Partial<SandboxOptions>): void;
	/** Current options (without the log function). */
	options(): Record<string, unknown>;
	createAccount(input: CreateAccountInput): { id: number };
	createTemplate(input: CreateTemplateInput): TemplateView;
	/** Creates scans directly in `status` (default completed): no credit, no rate limit, no processing, no webhooks. */
	seedScans(input: SeedScansInput): number[];
	/** Uploads another client of the account made in the last hour: charged, counted for the rolling-hour limit, completed. */
	seedUploads(input: SeedUploadsInput): number[];
	/** Sets the account's remaining credit. */
	setCredits(remaining: number, apiKey?: string): AccountSnapshot;
	/** After `after` more accepted uploads of the account, another client takes `slots` uploads and `credits` credit at once. */
	takeAfterUploads(input: TakeAfterInput): void;
	setReviewedData(scanId: number, reviewedData: Record<string, unknown> | null): void;
	/**
	 * Creates scans (as `seedScans` does) while a listing is read: when the GET /scans request
	 * after the next `afterListRequests` ones arrives, before it is answered. Cleared by reset.
	 */
	createScansDuringListing(afterListRequests: number, scans: SeedScansInput): void;
	/** The next uploads (FIFO) end in these states instead of the file-name rule. */
	setNextOutcomes(outcomes: Outcome[]): void;
	/** While held, scans stay in their current status. */
	hold(on: boolean): void;
	/** While held: the scan takes its next processing step now and stays there; returns the new status. */
	step(scanId: number): ScanStatus;
	addFault(fault: FaultSpec): void;
	/** Answers rewritten within what the documentation leaves open (engine/rewrites.ts); replaces the ones set before. */
	setRewrites(rewrites: RewriteSetting[]): void;
	clearFaults(): void;
	/** Moves the virtual clock (rolling-hour limit, timestamps); returns the new virtual time. */
	advanceClock(ms: number): string;
	/** Stops the virtual clock (at `atMs`, epoch ms, if given) until advanced, or lets it run again; returns the virtual time. */
	freezeClock(on: boolean, atMs?: number): string;
	requests(): RequestLogEntry[];
	clearRequests(): void;
	deliveries(): DeliveryRecord[];
	clearDeliveries(): void;
	waitForDeliveries(count: number, timeoutMs?: number): Promise<DeliveryRecord[]>;
	/**
	 * Sends one delivery now through the real signing path, ignoring the webhook's event subscription.
	 * Without scanId a sample scan (scan_id 0) is used. Refuses inactive webhooks.
	 */
	deliver(webhookId: number, event: WebhookEvent, scanId?: number): Promise<DeliveryRecord>;
	/**
	 * Sends recorded delivery `index` of deliveries() (default: the last) again, `copies` times
	 * at once (default 1): the same bytes and headers, or with `restamp` the same body with a new
	 * `timestamp`, signed again. Resolves with the repeats' records (`repeatOf`, `attempt`).
	 */
	repeatDelivery(input?: RepeatDeliveryInput): Promise<DeliveryRecord[]>;
	getScan(id: number): ScanRecord | undefined;
	getWebhook(id: number): WebhookRecord | undefined;
	account(apiKey?: string): AccountSnapshot;
	/** Deletes a webhook as if removed on the server side; returns whether it existed. */
	deleteWebhookDirect(id: number): boolean;
	deactivateWebhook(id: number): void;
}

export interface RepeatDeliveryInput {
	index?: number;
	restamp?: boolean;
	copies?: number;
}

const copy = <T>(value: T): T => structuredClone(value);

function requireOneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
	if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
		throw new Error(`${name} must be one of ${allowed.join(', ')}`);
	}
	return value as T;
}

export function createControl(core: SandboxCore): SandboxControl {
	const { store } = core;

	const accountFor = (apiKey: string = DEFAULT_API_KEY): AccountRecord => {
		const account = store.accountByKey(apiKey);
		if (!account) throw new Error('Unknown API key');
		return account;
	};

	const webhookOrThrow = (id: number): WebhookRecord => {
		const webhook = store.webhook(id);
		if (!webhook) throw new Error(`Webhook ${id} not found`);
		return webhook;
	};

	const scanOrThrow = (id: number): ScanRecord => {
		const scan = store.scan(id);
		if (!scan) throw new Error(`Scan ${id} not found`);
		return scan;
	};

	const control: SandboxControl = {
		reset: (options) => core.reset(options),
		setOptions: (partial) => core.setOptions(partial),
		options: () => copy(describeOptions(core.options)),

		createAccount: (input) => ({ id: store.createAccount(input).id }),

		createTemplate: (input) => {
			const account = accountFor(input.apiKey);
			if (typeof input.name !== 'string' || input.name === '')
				throw new Error('name must be a non-empty string');
			const mode = requireOneOf('extraction_mode', input.extraction_mode, EXTRACTION_MODES);
			const t = store.createTemplate(account.id, {
				name: input.name,
				extractionMode: mode,
				active: input.active ?? true,
			});
			return {
				id: t.id,
				name: t.name,
				extraction_mode: t.extractionMode,
				usage_count: t.usageCount,
				created_at: isoZulu(t.createdAt),
				active: t.active,
			};
		},

		seedScans: (input) => {
			const account = accountFor(input.apiKey);
			if (!Number.isInteger(input.count) || input.count < 0)
				throw new Error('count must be a non-negative integer');
			const status = requireOneOf('status', input.status ?? 'completed', SCAN_STATUSES);
			const templateId = input.template_id ?? store.activeTemplates(account.id)[0]?.id;
			const template = templateId === undefined ? undefined : store.template(templateId);
			if (!template || template.accountId !== account.id)
				throw new Error(`Template ${templateId} not found for this account`);
			if (
				input.filename !== undefined &&
				(typeof input.filename !== 'string' || input.filename === '')
			) {
				throw new Error('filename must be a non-empty string');
			}
			if (input.content_sha256 !== undefined) {
				if (
					typeof input.content_sha256 !== 'string' ||
					!/^[0-9a-f]{64}$/.test(input.content_sha256)
				) {
					throw new Error('content_sha256 must be 64 lower-case hex digits');
				}
				if (input.count !== 1) throw new Error('content_sha256 needs count 1');
			}
			if (input.age_ms !== undefined && (!Number.isInteger(input.age_ms) || input.age_ms < 0))
				throw new Error('age_ms must be a non-negative integer');
			const ids: number[] = [];
			for (let i = 0; i < input.count; i += 1) {
				const scan = store.insertScan({
					accountId: account.id,
					templateId: template.id,
					filename: 'seeded.pdf',
					contentSha256: '',
					plannedOutcome: 'completed',
					charged: false,
				});
				scan.filename = (input.filename ?? 'seeded-scan-{id}.pdf')
					.split('{id}')
					.join(String(scan.id));
				scan.contentSha256 =
					input.content_sha256 ?? createHash('sha256').update(`seeded:${scan.id}`).digest('hex');
				applyResult(scan, template.extractionMode, status);
				if (input.extracted_data !== undefined) scan.extractedData = copy(input.extracted_data);
				scan.reviewedData = input.reviewed_data === undefined ? null : copy(input.reviewed_data);
				const age = (input.age_ms ?? 0) + (input.count - 1 - ids.length) * (input.apart_ms ?? 0);
				if (age) scan.createdAt = scan.updatedAt = scan.createdAt - age;
				ids.push(scan.id);
			}
			return ids;
		},

		createScansDuringListing: (afterListRequests, scans) => {
			if (!Number.isInteger(afterListRequests) || afterListRequests < 0)
				throw new Error('afterListRequests must be a non-negative integer');
			accountFor(scans.apiKey);
			core.onListingRequest(afterListRequests, () => {
				control.seedScans(scans);
			});
		},
		seedUploads: (input) => {
			const account = accountFor(input.apiKey);
			const templateId = input.template_id ?? store.activeTemplates(account.id)[0]?.id;
			if (templateId === undefined) throw new Error('The account has no active template');
			return core.competition.seedUploads(
				account,
				templateId,
				input.count,
				input.oldest_age_ms,
				input.newest_age_ms,
			);
		},
		setCredits: (remaining, apiKey) => {
			core.competition.setCredits(accountFor(apiKey), remaining);
			return control.account(apiKey);
		},
		takeAfterUploads: (input) => core.competition.takeAfter(accountFor(input.apiKey), input),

		setReviewedData: (scanId, reviewedData) => {
			const scan = scanOrThrow(scanId);
			scan.reviewedData = reviewedData === null ? null : copy(reviewedData);
			store.touch(scan);
		},

		setNextOutcomes: (outcomes) => {
			if (!Array.isArray(outcomes)) throw new Error('outcomes must be an array');
			core.processor.setNextOutcomes(outcomes.map((o) => requireOneOf('outcome', o, OUTCOMES)));
		},

		hold: (on) => {
			if (typeof on !== 'boolean') throw new Error('hold needs true or false');
			core.processor.hold(on);
		},

		step: (scanId) => core.processor.stepHeld(scanId),

		addFault: (fault) => core.faults.add(fault),
		setRewrites: (rewrites) => core.rewrites.set(rewrites),
		clearFaults: () => core.faults.clear(),

		advanceClock: (ms) => {
			core.clock.advance(ms);
			return isoWithOffset(core.clock.now());
		},
		freezeClock: (on, atMs) => {
			core.clock.freeze(on, atMs);
			return isoWithOffset(core.clock.now());
		},

		requests: () => copy(core.requestLog),
		clearRequests: () => {
			core.requestLog = [];
		},

		deliveries: () => core.deliverer.list(),
		clearDeliveries: () => core.deliverer.clear(),
		waitForDeliveries: (count, timeoutMs) => core.deliverer.waitFor(count, timeoutMs),

		deliver: async (webhookId, event, scanId) => {
			const webhook = webhookOrThrow(webhookId);
			const kind = requireOneOf('event', event, WEBHOOK_EVENTS);
			if (!webhook.active) throw new Error(`Webhook ${webhookId} is inactive`);
			let scan: ScanRecord;
			if (scanId === undefined) {
				const template = store.activeTemplates(webhook.accountId)[0];
				const status = kind === 'scan.failed' ? 'failed' : 'completed';
				scan = sampleScan(
					template?.id ?? 0,
					template?.extractionMode ?? 'scalar',
					status,
					core.clock.now(),
				);
			} else {
				scan = scanOrThrow(scanId);
				if (scan.accountId !== webhook.accountId)
					throw new Error(`Scan ${scanId} belongs to another account`);
			}
			return core.deliverer.send(webhook, kind, scan);
		},

		repeatDelivery: async ({ index, restamp, copies } = {}) => {
			const last = core.deliverer.list().length - 1;
			const which = index ?? last;
			if (!Number.isInteger(which) || which < 0)
				throw new Error('index must name a recorded delivery');
			if (restamp !== undefined && typeof restamp !== 'boolean')
				throw new Error('restamp must be true or false');
			return await core.deliverer.repeat(which, { restamp, copies });
		},

		getScan: (id) => {
			const scan = store.scan(id);
			return scan && copy(scan);
		},
		getWebhook: (id) => {
			const webhook = store.webhook(id);
			return webhook && copy(webhook);
		},

		account: (apiKey) => {
			const account = accountFor(apiKey);
			return {
				id: account.id,
				business: account.business,
				remaining_scans: store.remainingScans(account),
				total_scans: account.totalScans,
				used_scans: account.usedScans,
			};
		},

		deleteWebhookDirect: (id) => store.deleteWebhook(id),
		deactivateWebhook: (id) => {
			webhookOrThrow(id).active = false;
		},
		// Listing behaviours and changes during a listing (control/listing.ts).
		...createListingControl(core, (input) => control.seedScans(input)),
		// Other clients, reprocessed scans, held requests (control/activity.ts).
		...createActivityControl(core, (input) => control.seedScans(input)),
	};
	return control;
}
