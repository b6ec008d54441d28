/**
 * Property-based tests (fast-check, fixed seed) of the one last-page rule for a page read on its
 * own (`endsListing`: uploads, the poller, the poll trigger, the hour count), over odd and
 * hostile `meta`: it agrees with the listing reader's rule (`isEndPage` with page 1's usable
 * `per_page`, else 25), so a page means the same thing to every reader.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { endsListing, PAGE_SIZE } from '../../nodes/shared/transport/paging';
import { isEndPage } from '../../nodes/shared/transport/listingPages';
import { runs } from '../support/property-runs';

const SEED = 19;

const hostile = fc.oneof(
	fc.constantFrom(0, -1, -25, Number.NaN, Infinity, '', 'abc', null, true, '25x', '2.5'),
	fc.integer({ min: 1, max: 60 }),
	fc.integer({ min: 1, max: 60 }).map(String),
);

const page = fc.record(
	{
		count: fc.integer({ min: 0, max: 60 }),
		meta: fc.option(
			fc.record(
				{
					per_page: hostile,
					current_page: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
					last_page: fc.option(hostile, { nil: undefined }),
					total: fc.option(hostile, { nil: undefined }),
				},
				{ requiredKeys: [] },
			),
			{ nil: undefined },
		),
		links: fc.option(fc.record({ next: fc.option(fc.string(), { nil: null }) }), {
			nil: undefined,
		}),
	},
	{ requiredKeys: ['count'] },
);

function build(spec: { count: number; meta?: IDataObject; links?: IDataObject }) {
	return {
		items: Array.from({ length: spec.count }, (_, i) => ({ id: 1000 - i })),
		meta: spec.meta,
		links: spec.links,
	};
}

describe('endsListing (the one last-page rule for a page read on its own)', () => {
	it("agrees with the reader's rule, with a usable per_page or else 25", () => {
		fc.assert(
			fc.property(page, (spec) => {
				const read = build(spec);
				const perPage = Number(spec.meta?.per_page);
				const size = Number.isFinite(perPage) && perPage > 0 ? Math.floor(perPage) : PAGE_SIZE;
				expect(endsListing(read)).toBe(isEndPage(read, size));
			}),
			runs(SEED, 500),
		);
	});

	it('an empty page, or one shorter than its page size, always ends the listing', () => {
		fc.assert(
			fc.property(page, (spec) => {
				const read = build(spec);
				const perPage = Number(spec.meta?.per_page);
				const size = Number.isFinite(perPage) && perPage > 0 ? Math.floor(perPage) : PAGE_SIZE;
				if (read.items.length === 0 || read.items.length < size)
					expect(endsListing(read)).toBe(true);
			}),
			runs(SEED, 500),
		);
	});

	it('a full page never ends it, whatever meta or links say (a count that is off ends nothing early)', () => {
		const read = build({ count: PAGE_SIZE });
		expect(endsListing(read)).toBe(false);
		expect(endsListing({ ...read, meta: { per_page: 'abc' } })).toBe(false);
		expect(endsListing({ ...read, links: { next: null } })).toBe(false);
		expect(endsListing({ ...read, meta: { current_page: 1, last_page: 1, total: 25 } })).toBe(
			false,
		);
	});

	it('a short page whose per_page is not a positive number ends it (as Get Many reads it)', () => {
		for (const perPage of [0, -5, 'abc', '', null]) {
			expect(endsListing({ items: [{ id: 1 }], meta: { per_page: perPage } })).toBe(true);
		}
	});
});
