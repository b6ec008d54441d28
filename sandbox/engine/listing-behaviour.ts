/**
 * How `GET /scans` behaves where the API documentation is silent (issue 25), so that tests can
 * play each plausible server:
 *
 * - `pageEnd`: what a page past the last one gets: `empty` (default: an empty page), `404` or
 *   `422` (an error instead), or `last` (the last page again: the server clamps `page`);
 * - `ignorePage`: every `page` gets page 1 (a server that does not page);
 * - hidden scans: listings leave them out until they are revealed (a scan visible late, as with
 *   parallel uploads whose rows become visible out of order). `GET /scans/{id}` still finds them;
 * - `pageWaits`: the request for one page is answered only after a request for another page was
 *   (pages read side by side, served out of order, without timing: a status change between the
 *   two then lands exactly between them); once the other page was answered, it no longer waits.
 *
 * - `metaPages`: page `meta` (and `links`) report this many pages, whatever the account holds:
 *   a very large account read only at its top (e.g. 20,000 pages on page 1), or a count that is
 *   off. The pages served are the real ones.
 *
 * Reset by `reset()`. Status changes and reveals while a listing is read go through
 * `core.onListingRequest` (control/listing.ts).
 */

export const PAGE_ENDS = ['empty', '404', '422', 'last'] as const;
export type PageEnd = (typeof PAGE_ENDS)[number];

export interface ListingBehaviourSpec {
	pageEnd?: PageEnd;
	ignorePage?: boolean;
	/** `{page: 2, for: 3}`: page 2 is answered after page 3 (null: no such rule). */
	pageWaits?: { page: number; for: number } | null;
	/** Pages `meta.last_page` reports (total: 25 a page); null: the real count. */
	metaPages?: number | null;
}

/** How long a waiting page waits at most for the other one (a test that never asks for it). */
export const PAGE_WAIT_LIMIT_MS = 10_000;

/** The page a request gets: a page number to cut, or an HTTP error status. */
export type PageChoice = { page: number } | { status: 404 | 422; lastPage: number };

export class ListingBehaviour {
	private pageEnd: PageEnd = 'empty';
	private ignorePage = false;
	private hidden = new Set<number>();
	private pageWaits: { page: number; for: number } | null = null;
	private metaPages: number | null = null;
	/** Resolves the waits for a page when a request for it is answered. */
	private waiting = new Map<number, Array<() => void>>();
	/** Pages answered since `pageWaits` was set: a page waits only until its other one was. */
	private answeredPages = new Set<number>();

	reset(): void {
		this.pageEnd = 'empty';
		this.ignorePage = false;
		this.hidden.clear();
		this.pageWaits = null;
		this.answeredPages.clear();
		this.metaPages = null;
		for (const resolves of this.waiting.values()) for (const resolve of resolves) resolve();
		this.waiting.clear();
	}

	/** Validates and applies; keys left out stay as they are. */
	set(spec: ListingBehaviourSpec): void {
		if (spec.pageEnd !== undefined && !(PAGE_ENDS as readonly string[]).includes(spec.pageEnd))
			throw new Error(`pageEnd must be one of ${PAGE_ENDS.join(', ')}`);
		if (spec.ignorePage !== undefined && typeof spec.ignorePage !== 'boolean')
			throw new Error('ignorePage must be true or false');
		const waits = spec.pageWaits;
		if (
			waits !== undefined &&
			waits !== null &&
			!(
				Number.isSafeInteger(waits?.page) &&
				Number.isSafeInteger(waits?.for) &&
				waits.page >= 1 &&
				waits.for >= 1 &&
				waits.page !== waits.for
			)
		)
			throw new Error('pageWaits must be {page, for}: two different page numbers, or null');
		const pages = spec.metaPages;
		if (pages !== undefined && pages !== null && !(Number.isSafeInteger(pages) && pages >= 1))
			throw new Error('metaPages must be a page count of at least 1, or null');
		if (pages !== undefined) this.metaPages = pages;
		if (spec.pageEnd !== undefined) this.pageEnd = spec.pageEnd;
		if (spec.ignorePage !== undefined) this.ignorePage = spec.ignorePage;
		if (waits !== undefined) this.pageWaits = waits === null ? null : { ...waits };
		if (waits !== undefined) this.answeredPages.clear();
	}

	describe(): Required<ListingBehaviourSpec> & { hidden: number[] } {
		return {
			pageEnd: this.pageEnd,
			ignorePage: this.ignorePage,
			pageWaits: this.pageWaits,
			metaPages: this.metaPages,
			hidden: [...this.hidden].sort((a, b) => a - b),
		};
	}

	/**
	 * Resolves when request `page` may be answered: at once, or (pageWaits) once a request for
	 * the other page was answered, at most PAGE_WAIT_LIMIT_MS later (`sleep` is the sandbox's
	 * cancellable timer).
	 */
	async turn(page: number, sleep: (ms: number) => Promise<void>): Promise<void> {
		if (this.pageWaits?.page !== page) return;
		const other = this.pageWaits.for;
		if (this.answeredPages.has(other)) return;
		await Promise.race([
			new Promise<void>((resolve) =>
				this.waiting.set(other, [...(this.waiting.get(other) ?? []), resolve]),
			),
			sleep(PAGE_WAIT_LIMIT_MS),
		]);
	}

	/** A request for `page` was answered: the pages waiting for it go on. */
	answered(page: number): void {
		this.answeredPages.add(page);
		const resolves = this.waiting.get(page) ?? [];
		this.waiting.delete(page);
		for (const resolve of resolves) resolve();
	}

	/** The page count `meta` reports for a listing of `lastPage` real pages. */
	reportedPages(lastPage: number): number {
		return this.metaPages ?? lastPage;
	}

	hide(ids: number[]): void {
		for (const id of checkedIds(ids)) this.hidden.add(id);
	}

	reveal(ids: number[]): void {
		for (const id of checkedIds(ids)) this.hidden.delete(id);
	}

	isListed(id: number): boolean {
		return !this.hidden.has(id);
	}

	/** The page that request `requested` gets from a listing of `total` records, 25 a page. */
	choose(requested: number, total: number, pageSize: number): PageChoice {
		if (this.ignorePage) return { page: 1 };
		const lastPage = Math.max(1, Math.ceil(total / pageSize));
		if (requested <= lastPage || this.pageEnd === 'empty') return { page: requested };
		if (this.pageEnd === 'last') return { page: lastPage };
		return { status: this.pageEnd === '404' ? 404 : 422, lastPage };
	}
}

function checkedIds(ids: unknown): number[] {
	if (!Array.isArray(ids) || ids.some((id) => !Number.isSafeInteger(id) || id < 1))
		throw new Error('ids must be an array of scan ids');
	return ids as number[];
}
