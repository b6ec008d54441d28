import { VirtualClock } from './clock';
import {
	AccountRecord,
	DEFAULT_API_KEY,
	LOGS_KEPT_PER_WEBHOOK,
	MAX_API_KEYS_PER_ACCOUNT,
	NO_BUSINESS_API_KEY,
	ROLLING_WINDOW_MS,
	ScanFilter,
	ScanRecord,
	TemplateRecord,
	WebhookLogRecord,
	WebhookRecord,
	newScanRecord,
} from './records';
import { ExtractionMode, Outcome, WebhookEvent } from '../types';

const DEFAULT_TEMPLATES: ReadonlyArray<{ name: string; mode: ExtractionMode; active: boolean }> = [
	{ name: 'Invoice', mode: 'scalar', active: true },
	{ name: 'Delivery note', mode: 'tabular', active: true },
	{ name: 'Invoice with line items', mode: 'mixed', active: true },
	{ name: 'Receipt photo', mode: 'vision', active: true },
	{ name: 'Archived order form', mode: 'scalar', active: false },
];

/** All sandbox data. IDs are global integer counters that restart at 1 on reset. */
export class Store {
	private accounts = new Map<number, AccountRecord>();
	private accountsByKey = new Map<string, AccountRecord>();
	private templates = new Map<number, TemplateRecord>();
	private scans = new Map<number, ScanRecord>();
	/** Scans in ID order per account and per template, so that listing a large account stays cheap. */
	private scansByAccount = new Map<number, ScanRecord[]>();
	private scansByTemplate = new Map<number, ScanRecord[]>();
	private webhooks = new Map<number, WebhookRecord>();
	private logs = new Map<number, WebhookLogRecord[]>();
	private counters = { account: 0, template: 0, scan: 0, webhook: 0, log: 0 };

	constructor(private readonly clock: VirtualClock) {}

	clear(): void {
		this.accounts.clear();
		this.accountsByKey.clear();
		this.templates.clear();
		this.scans.clear();
		this.scansByAccount.clear();
		this.scansByTemplate.clear();
		this.webhooks.clear();
		this.logs.clear();
		this.counters = { account: 0, template: 0, scan: 0, webhook: 0, log: 0 };
	}

	/** Account 1 (DEFAULT_API_KEY + extra keys, Business, 2000 credits, templates 1-5) and account 2 (no Business). */
	seed(extraApiKeys: string[]): void {
		const main = this.createAccount({ apiKeys: [DEFAULT_API_KEY, ...extraApiKeys] });
		for (const t of DEFAULT_TEMPLATES) {
			this.createTemplate(main.id, { name: t.name, extractionMode: t.mode, active: t.active });
		}
		this.createAccount({ apiKeys: [NO_BUSINESS_API_KEY], business: false });
	}

	// --- accounts -----------------------------------------------------------

	createAccount(input: { apiKeys: string[]; business?: boolean; credits?: number }): AccountRecord {
		const keys = input.apiKeys;
		if (!Array.isArray(keys) || keys.length < 1 || keys.length > MAX_API_KEYS_PER_ACCOUNT) {
			throw new Error(`An account needs 1 to ${MAX_API_KEYS_PER_ACCOUNT} API keys`);
		}
		if (new Set(keys).size !== keys.length) throw new Error('API keys of an account must differ');
		for (const key of keys) {
			if (typeof key !== 'string' || key === '')
				throw new Error('API keys must be non-empty strings');
			if (this.accountsByKey.has(key)) throw new Error('An API key given is already in use');
		}
		const credits = input.credits ?? 2000;
		if (!Number.isInteger(credits) || credits < 0)
			throw new Error('credits must be a non-negative integer');
		const account: AccountRecord = {
			id: ++this.counters.account,
			apiKeys: [...keys],
			business: input.business ?? true,
			totalScans: credits,
			usedScans: 0,
			acceptedUploads: [],
		};
		this.accounts.set(account.id, account);
		for (const key of keys) this.accountsByKey.set(key, account);
		return account;
	}

	accountByKey(key: string): AccountRecord | undefined {
		return this.accountsByKey.get(key);
	}

	remainingScans(account: AccountRecord): number {
		return Math.max(0, account.totalScans - account.usedScans);
	}

	/** Accepted uploads inside the rolling hour ending now (prunes older entries). */
	uploadsInWindow(account: AccountRecord): number[] {
		const cutoff = this.clock.now() - ROLLING_WINDOW_MS;
		account.acceptedUploads = account.acceptedUploads.filter((t) => t > cutoff);
		return account.acceptedUploads;
	}

	refund(scan: ScanRecord): void {
		const account = this.accounts.get(scan.accountId);
		if (!scan.charged || !account) return;
		scan.charged = false;
		account.usedScans = Math.max(0, account.usedScans - 1);
	}

	// --- templates ----------------------------------------------------------

	createTemplate(
		accountId: number,
		input: { name: string; extractionMode: ExtractionMode; active?: boolean },
	): TemplateRecord {
		const template: TemplateRecord = {
			id: ++this.counters.template,
			accountId,
			name: input.name,
			extractionMode: input.extractionMode,
			active: input.active ?? true,
			usageCount: 0,
			createdAt: this.clock.now(),
		};
		this.templates.set(template.id, template);
		return template;
	}

	template(id: number): TemplateRecord | undefined {
		return this.templates.get(id);
	}

	/** An active template owned by the account, else undefined. */
	usableTemplate(accountId: number, id: number): TemplateRecord | undefined {
		const template = this.templates.get(id);
		return template && template.accountId === accountId && template.active ? template : undefined;
	}

	activeTemplates(accountId: number): TemplateRecord[] {
		return [...this.templates.values()].filter((t) => t.accountId === accountId && t.active);
	}

	// --- scans --------------------------------------------------------------

	/**
	 * Records an accepted upload: takes one credit, counts it in the rolling window and in the template's usage.
	 */
	createUploadedScan(input: {
		account: AccountRecord;
		template: TemplateRecord;
		filename: string;
		contentSha256: string;
		documentText?: string[];
		plannedOutcome: Outcome;
	}): ScanRecord {
		const now = this.clock.now();
		input.account.usedScans += 1;
		input.account.acceptedUploads.push(now);
		input.template.usageCount += 1;
		return this.insertScan({
			accountId: input.account.id,
			templateId: input.template.id,
			filename: input.filename,
			contentSha256: input.contentSha256,
			plannedOutcome: input.plannedOutcome,
			charged: true,
			...(input.documentText ? { documentText: input.documentText } : {}),
		});
	}

	insertScan(input: {
		accountId: number;
		templateId: number;
		filename: string;
		contentSha256: string;
		documentText?: string[];
		plannedOutcome: Outcome;
		charged: boolean;
	}): ScanRecord {
		const scan = newScanRecord({ id: ++this.counters.scan, ...input }, this.clock.now());
		this.scans.set(scan.id, scan);
		for (const [index, key] of [
			[this.scansByAccount, scan.accountId],
			[this.scansByTemplate, scan.templateId],
		] as const) {
			const list = index.get(key);
			if (list) list.push(scan);
			else index.set(key, [scan]);
		}
		return scan;
	}

	scan(id: number): ScanRecord | undefined {
		return this.scans.get(id);
	}

	scanOf(accountId: number, id: number): ScanRecord | undefined {
		const scan = this.scans.get(id);
		return scan && scan.accountId === accountId ? scan : undefined;
	}

	/** Same content and template, not failed: a re-upload is refused with 409. */
	findDuplicate(
		accountId: number,
		templateId: number,
		contentSha256: string,
	): ScanRecord | undefined {
		for (const scan of this.scans.values()) {
			if (
				scan.accountId === accountId &&
				scan.templateId === templateId &&
				scan.contentSha256 === contentSha256 &&
				scan.status !== 'failed'
			) {
				return scan;
			}
		}
		return undefined;
	}

	/** Newest first (highest id first: ids grow with creation time). */
	listScans(accountId: number, filter: ScanFilter): ScanRecord[] {
		// IDs grow with creation time: each index reversed is newest first, without a sort.
		const base =
			filter.templateId === undefined
				? (this.scansByAccount.get(accountId) ?? [])
				: (this.scansByTemplate.get(filter.templateId) ?? []).filter(
						(s) => s.accountId === accountId,
					);
		const found =
			filter.status === undefined ? base.slice() : base.filter((s) => s.status === filter.status);
		return found.reverse();
	}

	touch(scan: ScanRecord): void {
		scan.updatedAt = this.clock.now();
	}

	// --- webhooks -----------------------------------------------------------

	createWebhook(input: {
		accountId: number;
		name: string;
		url: string;
		events: WebhookEvent[];
		secret: string;
	}): WebhookRecord {
		const webhook: WebhookRecord = {
			id: ++this.counters.webhook,
			accountId: input.accountId,
			name: input.name,
			url: input.url,
			events: [...input.events],
			active: true,
			failureCount: 0,
			secret: input.secret,
			createdAt: this.clock.now(),
			lastDeliveryAt: null,
		};
		this.webhooks.set(webhook.id, webhook);
		this.logs.set(webhook.id, []);
		return webhook;
	}

	webhook(id: number): WebhookRecord | undefined {
		return this.webhooks.get(id);
	}

	webhookOf(accountId: number, id: number): WebhookRecord | undefined {
		const webhook = this.webhooks.get(id);
		return webhook && webhook.accountId === accountId ? webhook : undefined;
	}

	/** Oldest first. */
	webhooksOf(accountId: number): WebhookRecord[] {
		return [...this.webhooks.values()].filter((w) => w.accountId === accountId);
	}

	deleteWebhook(id: number): boolean {
		this.logs.delete(id);
		return this.webhooks.delete(id);
	}

	/** Adds a delivery log entry; keeps the newest LOGS_KEPT_PER_WEBHOOK entries. */
	addLog(entry: Omit<WebhookLogRecord, 'id' | 'createdAt'>): WebhookLogRecord | undefined {
		const list = this.logs.get(entry.webhookId);
		if (!list) return undefined;
		const record: WebhookLogRecord = {
			...entry,
			id: ++this.counters.log,
			createdAt: this.clock.now(),
		};
		list.push(record);
		if (list.length > LOGS_KEPT_PER_WEBHOOK) list.splice(0, list.length - LOGS_KEPT_PER_WEBHOOK);
		return record;
	}

	/** Newest first. */
	logsOf(webhookId: number): WebhookLogRecord[] {
		return [...(this.logs.get(webhookId) ?? [])].reverse();
	}
}
