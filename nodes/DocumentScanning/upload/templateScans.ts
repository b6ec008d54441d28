/**
 * What one execution knows of a template's scans, to find the scan that holds a file: indexed
 * by the content fingerprint in the stored name (the proof) and by the user's part of the name
 * (named in errors, never output). It grows from the hour's scans the check before the first
 * upload read (`add`), from the template's listing read from the top only while some item waits
 * for its scan, resumed where it stopped (`find`), and from the newest pages again when the
 * knowledge is older than a 409 (`coverUntil`). Nothing is kept beyond the execution.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { pageIgnoredError, restlessError, tooManyPagesError } from './errors';
import { normalizedFileName } from './fileNames';
import { fingerprintIn } from './fingerprint';
import type { ListingRequest } from './scanPages';
import {
	CLOCK_ALLOWANCE_MS,
	createdAtMs,
	holdsFiles,
	isNew,
	LISTING_MAX_PAGES,
	MAX_REPEATS,
	nameKeys,
	push,
} from './scanPages';
import { classifyRepeat } from '../../shared/transport/listingEnds';
import type { Read } from '../../shared/transport/listingPages';
import { readScanPage } from '../../shared/transport/paging';

export class TemplateScans {
	private readonly byFingerprint = new Map<string, IDataObject[]>();
	private readonly byName = new Map<string, IDataObject[]>();
	private readonly ids = new Set<string>();
	/** Local time at which the newest read of page 1 was sent; undefined before the first. */
	private coveredUntil: number | undefined;
	private refreshing?: { startedAt: number; done: Promise<void> };
	/** The read from the top: the next page, whether it ended, the page read last. */
	private nextPage = 1;
	private ended = false;
	private repeats = 0;
	private lastPage?: Read;
	/** The scans the read from the top has seen (others may be known from elsewhere). */
	private readonly readIds = new Set<string>();
	private reading?: Promise<void>;
	/** The server answered page 2 with page 1: what lies beyond page 1 cannot be read. */
	private onlyFirstPage = false;

	constructor(
		readonly templateId: number,
		/** Pages read at most (the guard against a listing that never ends). */
		private readonly maxPages = LISTING_MAX_PAGES,
	) {}

	/** Adds scans that name this template, or (from its own listing, `own`) none. */
	add(scans: IDataObject[], own = false): void {
		for (const scan of scans) {
			const template = own ? (scan.template_id ?? this.templateId) : scan.template_id;
			if (Number(template) !== this.templateId || !isNew(this.ids, scan)) continue;
			const fingerprint = fingerprintIn(scan.filename);
			if (fingerprint !== undefined) push(this.byFingerprint, fingerprint, scan);
			for (const name of nameKeys(scan.filename)) push(this.byName, name, scan);
		}
	}

	/** The known scans that carry `fingerprint` and can hold a file, newest first. */
	proven(fingerprint: string): IDataObject[] {
		return (this.byFingerprint.get(fingerprint) ?? [])
			.filter((scan) => holdsFiles(scan, this.templateId))
			.sort((a, b) => Number(b.id) - Number(a.id));
	}

	/** The one known scan that carries `fingerprint`, if exactly one does. */
	onlyProven(fingerprint: string | undefined): IDataObject | undefined {
		const proven = fingerprint === undefined ? [] : this.proven(fingerprint);
		return proven.length === 1 ? proven[0] : undefined;
	}

	/** The known scans named `userName` without any fingerprint: maybe the file's, never proof. */
	sameNameWithoutProof(userName: string): IDataObject[] {
		return (this.byName.get(normalizedFileName(userName)) ?? []).filter(
			(scan) => fingerprintIn(scan.filename) === undefined && holdsFiles(scan, this.templateId),
		);
	}

	/**
	 * The scans that carry `fingerprint`: from what is known, else further down the listing until
	 * found or its end (pages read one after the other never skip one), then among the scans made
	 * since the newest read of page 1 if that is older than `needed` (when the 409 arrived).
	 */
	async find(
		ctx: IExecuteFunctions,
		fingerprint: string,
		needed: number,
		request: ListingRequest,
	): Promise<IDataObject[]> {
		while (this.proven(fingerprint).length === 0 && !this.ended) await this.readNext(ctx, request);
		if (this.proven(fingerprint).length === 0) await this.coverUntil(ctx, needed, request);
		if (this.proven(fingerprint).length === 0 && this.onlyFirstPage)
			throw pageIgnoredError(ctx, request);
		return this.proven(fingerprint);
	}

	/** Reads the listing on from the top, page after page, until `enough()` or its end. */
	async readUntil(
		ctx: IExecuteFunctions,
		enough: () => boolean,
		request: ListingRequest,
	): Promise<void> {
		while (!enough() && !this.ended) await this.readNext(ctx, request);
	}

	/** The next page from the top, shared by every item waiting for it. */
	private async readNext(ctx: IExecuteFunctions, request: ListingRequest): Promise<void> {
		this.reading ??= this.readPage(ctx, request).finally(() => (this.reading = undefined));
		await this.reading;
	}

	private async readPage(ctx: IExecuteFunctions, request: ListingRequest): Promise<void> {
		if (this.nextPage > this.maxPages) throw tooManyPagesError(ctx, request, this.maxPages);
		const pageNumber = this.nextPage;
		const sentAt = Date.now();
		const page = await this.fetch(ctx, pageNumber, request);
		if (pageNumber === 1) this.coveredUntil = Math.max(this.coveredUntil ?? sentAt, sentAt);
		const fresh = page.items.filter((scan) => isNew(this.readIds, scan));
		this.add(page.items, true);
		if (page.last) {
			this.ended = true;
			return;
		}
		if (fresh.length === 0 && pageNumber > 1 && this.lastPage) {
			// Only scans already read: pushed down by new ones, the last page served again, or a
			// server that ignores `page` (the shared rules of listingEnds.ts tell them apart).
			const kind = await classifyRepeat(page.read, this.lastPage, async (n) => {
				return (await this.fetch(ctx, n, request)).read;
			});
			if (kind !== 'shifted') {
				// Page 1 again: nothing beyond it can be read (or it is the one full page: the two
				// look the same), so nothing beyond it is taken as known.
				this.ended = true;
				this.onlyFirstPage = kind === 'ignored';
				return;
			}
			if (++this.repeats > MAX_REPEATS) throw restlessError(ctx, request);
		} else {
			this.repeats = 0;
		}
		this.lastPage = page.read;
		this.nextPage = pageNumber + 1;
	}

	private async fetch(ctx: IExecuteFunctions, page: number, request: ListingRequest) {
		return await readScanPage(ctx, { template_id: this.templateId }, page, request.itemIndex);
	}

	/**
	 * Makes sure every scan made before local time `needed` is known: when the newest read of
	 * page 1 is older, the newest pages are read again, once for all items waiting for it.
	 */
	async coverUntil(ctx: IExecuteFunctions, needed: number, request: ListingRequest): Promise<void> {
		while (this.coveredUntil === undefined || this.coveredUntil < needed) {
			const running = this.refreshing;
			if (running && running.startedAt >= needed) {
				await running.done;
				return;
			}
			if (running) {
				await running.done.catch(() => undefined);
				continue;
			}
			const startedAt = Date.now();
			const since = this.coveredUntil ?? -Infinity;
			const done = (async () => {
				try {
					this.add(await this.readSince(ctx, since, request), true);
					this.coveredUntil = Math.max(this.coveredUntil ?? startedAt, startedAt);
				} finally {
					this.refreshing = undefined;
				}
			})();
			this.refreshing = { startedAt, done };
			await done;
		}
	}

	/**
	 * The template's scans created after local time `since` (server clock, CLOCK_ALLOWANCE_MS of
	 * margin), newest first. A page of scans already read means new ones pushed them down, not
	 * the end, unless it is the last page served again (`clamped`); an ignored `page` is an error.
	 */
	async readSince(
		ctx: IExecuteFunctions,
		since: number,
		request: ListingRequest,
	): Promise<IDataObject[]> {
		const found: IDataObject[] = [];
		const seen = new Set<string>();
		let threshold = -Infinity;
		let before: Read | undefined;
		let repeats = 0;
		const read = async (pageNumber: number) => await this.fetch(ctx, pageNumber, request);
		for (let pageNumber = 1; ; pageNumber++) {
			if (pageNumber > this.maxPages) throw tooManyPagesError(ctx, request, this.maxPages);
			const sentAt = Date.now();
			const page = await read(pageNumber);
			if (pageNumber === 1)
				threshold = since + (page.serverTime ?? sentAt) - sentAt - CLOCK_ALLOWANCE_MS;
			let fresh = 0;
			for (const scan of page.items) {
				if (!isNew(seen, scan)) continue;
				fresh++;
				const created = createdAtMs(scan);
				// Newest first: from here on every scan is older.
				if (created !== undefined && created < threshold) return found;
				found.push(scan);
			}
			if (page.last) return found;
			if (fresh === 0 && before) {
				const kind = await classifyRepeat(page.read, before, async (n) => (await read(n)).read);
				if (kind === 'clamped') return found;
				if (kind === 'ignored') throw pageIgnoredError(ctx, request);
				if (++repeats > MAX_REPEATS) throw restlessError(ctx, request);
			} else repeats = 0;
			before = page.read;
		}
	}
}

/** The execution's indexes, one per template, made on first use. */
export class TemplateIndexes {
	private readonly byTemplate = new Map<number, TemplateScans>();

	of(templateId: number): TemplateScans {
		const index = this.byTemplate.get(templateId) ?? new TemplateScans(templateId);
		this.byTemplate.set(templateId, index);
		return index;
	}

	/** Every template's index learns the scans it holds. */
	addAll(scans: IDataObject[], templateIds: Iterable<number>): void {
		for (const templateId of templateIds) this.of(templateId).add(scans);
	}
}
