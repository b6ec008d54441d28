/**
 * How `GET /scans` behaves where the API documentation is silent (issue 25), so that tests can
 * play each plausible server:
 *
 * - `pageEnd`: what a page past the last one gets: `empty` (default: an empty page), `404` or
 *   `422` (an error instead), or `last` (the last page again: the server clamps `page`);
 * - `ignorePage`: every `page` gets page 1 (a server that does not page);
 * - hidden scans: listings leave them out until they are revealed (a scan visible late, as with
 *   parallel uploads whose rows become visible out of order). `GET /scans/{id}` still finds them.
 *
 * Reset by `reset()`. Status changes and reveals while a listing is read go through
 * `core.onListingRequest` (control/listing.ts).
 */

export const PAGE_ENDS = ['empty', '404', '422', 'last'] as const;
export type PageEnd = (typeof PAGE_ENDS)[number];

export interface ListingBehaviourSpec {
	pageEnd?: PageEnd;
	ignorePage?: boolean;
}

/** The page a request gets: a page number to cut, or an HTTP error status. */
export type PageChoice = { page: number } | { status: 404 | 422; lastPage: number };

export class ListingBehaviour {
	private pageEnd: PageEnd = 'empty';
	private ignorePage = false;
	private hidden = new Set<number>();

	reset(): void {
		this.pageEnd = 'empty';
		this.ignorePage = false;
		this.hidden.clear();
	}

	/** Validates and applies; keys left out stay as they are. */
	set(spec: ListingBehaviourSpec): void {
		if (spec.pageEnd !== undefined && !(PAGE_ENDS as readonly string[]).includes(spec.pageEnd))
			throw new Error(`pageEnd must be one of ${PAGE_ENDS.join(', ')}`);
		if (spec.ignorePage !== undefined && typeof spec.ignorePage !== 'boolean')
			throw new Error('ignorePage must be true or false');
		if (spec.pageEnd !== undefined) this.pageEnd = spec.pageEnd;
		if (spec.ignorePage !== undefined) this.ignorePage = spec.ignorePage;
	}

	describe(): Required<ListingBehaviourSpec> & { hidden: number[] } {
		return {
			pageEnd: this.pageEnd,
			ignorePage: this.ignorePage,
			hidden: [...this.hidden].sort((a, b) => a - b),
		};
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
