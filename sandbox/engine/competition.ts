/**
 * Other clients of the same account: uploads they made in the last hour (they count for the
 * rolling-hour limit and use credit), and slots or credit they take between a client's check
 * and its uploads. Used to reproduce a shared account without sleeps.
 */
import { createHash } from 'node:crypto';
import { VirtualClock } from './clock';
import { applyResult } from './processing';
import { Store } from './state';
import { AccountRecord, ROLLING_WINDOW_MS, ScanRecord, TemplateRecord } from './records';

export interface SeedUploadsInput {
	apiKey?: string;
	count: number;
	template_id?: number;
	/** Age of the oldest of these uploads (ms before now, below one hour); the others follow evenly up to now. Default 30 min. */
	oldest_age_ms?: number;
	/** Age of the newest of them (ms before now, at most oldest_age_ms). Default 0. */
	newest_age_ms?: number;
}

export interface TakeAfterInput {
	apiKey?: string;
	/** Accepted uploads of the account (from now) after which the other client acts. */
	after: number;
	/** Uploads the other client makes at that moment (slots of the rolling hour, one credit each). */
	slots?: number;
	/** Credit the other client uses at that moment, besides its uploads. */
	credits?: number;
}

interface Pending {
	accountId: number;
	left: number;
	slots: number;
	credits: number;
}

export class Competition {
	private pending: Pending[] = [];

	constructor(
		private readonly store: Store,
		private readonly clock: VirtualClock,
	) {}

	reset(): void {
		this.pending = [];
	}

	/** Uploads another client made: charged scans created in the past hour, counted in the rolling window. */
	seedUploads(
		account: AccountRecord,
		templateId: number,
		count: number,
		oldestAgeMs = 30 * 60 * 1000,
		newestAgeMs = 0,
	): number[] {
		if (!Number.isInteger(count) || count < 0)
			throw new Error('count must be a non-negative integer');
		if (!Number.isFinite(oldestAgeMs) || oldestAgeMs < 0 || oldestAgeMs >= ROLLING_WINDOW_MS) {
			throw new Error('oldest_age_ms must be at least 0 and below one hour');
		}
		if (!Number.isFinite(newestAgeMs) || newestAgeMs < 0 || newestAgeMs > oldestAgeMs) {
			throw new Error('newest_age_ms must be between 0 and oldest_age_ms');
		}
		const template = this.store.usableTemplate(account.id, templateId);
		if (!template) throw new Error(`Template ${templateId} not found for this account`);
		const now = this.clock.now();
		const ids: number[] = [];
		for (let i = 0; i < count; i += 1) {
			const at = Math.round(now - oldestAgeMs + (i * (oldestAgeMs - newestAgeMs)) / count);
			const scan = this.upload(account, template);
			applyResult(scan, template.extractionMode, 'completed');
			scan.createdAt = at;
			scan.updatedAt = at;
			account.acceptedUploads[account.acceptedUploads.length - 1] = at;
			ids.push(scan.id);
		}
		account.acceptedUploads.sort((a, b) => a - b);
		return ids;
	}

	/** An upload another client makes now: a charged scan `other-client-<id>.pdf`, counted in the rolling hour. */
	upload(account: AccountRecord, template: TemplateRecord): ScanRecord {
		const scan = this.store.createUploadedScan({
			account,
			template,
			filename: 'other-client.pdf',
			contentSha256: '',
			plannedOutcome: 'completed',
		});
		scan.filename = `other-client-${scan.id}.pdf`;
		scan.contentSha256 = createHash('sha256').update(`other-client:${scan.id}`).digest('hex');
		return scan;
	}

	/** Sets the account's remaining credit (total = used + remaining). */
	setCredits(account: AccountRecord, remaining: number): void {
		if (!Number.isInteger(remaining) || remaining < 0)
			throw new Error('remaining must be a non-negative integer');
		account.totalScans = account.usedScans + remaining;
	}

	takeAfter(account: AccountRecord, input: TakeAfterInput): void {
		const slots = input.slots ?? 0;
		const credits = input.credits ?? 0;
		for (const [name, value] of [
			['after', input.after],
			['slots', slots],
			['credits', credits],
		] as const) {
			if (!Number.isInteger(value) || value < 0)
				throw new Error(`${name} must be a non-negative integer`);
		}
		this.pending.push({ accountId: account.id, left: input.after, slots, credits });
		if (input.after === 0) this.fire(account);
	}

	/** Called after each accepted upload of `account`. */
	afterUpload(account: AccountRecord): void {
		for (const entry of this.pending) if (entry.accountId === account.id) entry.left -= 1;
		this.fire(account);
	}

	private fire(account: AccountRecord): void {
		const due = this.pending.filter((entry) => entry.accountId === account.id && entry.left <= 0);
		this.pending = this.pending.filter((entry) => !due.includes(entry));
		for (const entry of due) {
			const template = this.store.activeTemplates(account.id)[0];
			if (entry.slots > 0 && template) this.seedUploads(account, template.id, entry.slots, 0);
			account.usedScans = Math.min(account.totalScans, account.usedScans + entry.credits);
		}
	}
}
