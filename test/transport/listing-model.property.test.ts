/**
 * Property-based tests (fast-check, fixed seed) of Get Many's listing (`readPages`, as Scan →
 * Get Many calls it) against the simulated service of listing-model.ts (issue 25 §8): scans join
 * and leave a filtered list anywhere, become visible out of order, and every page end the spec
 * allows. Pages are read side by side and served in random order.
 *
 * Whatever happens: every scan that matched the filter at every request of the listing comes
 * out exactly once; nothing comes out twice; nothing that never matched comes out; or the
 * listing fails with a clear error that says what the server did (a server that ignores
 * `page`, a listing that moves faster than it can be read), never a silent loss.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import type { ApiContext } from '../../nodes/shared/transport';
import { readPages } from '../../nodes/shared/transport/paging';
import { runs } from '../support/property-runs';
import type { Filter, PageEnd, ServiceSpec } from './listing-model';
import { PAGE, Service } from './listing-model';

const SEED = 20261125;

const node = { id: '1', name: 'Get Many', type: 'test', typeVersion: 1, position: [0, 0] };

function contextFor(service: Service, date: boolean): ApiContext {
	return {
		getNode: () => node,
		getCredentials: async () => ({ baseUrl: 'https://api.example.com/api/v1', apiKey: 'k' }),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IDataObject) => {
				const answer = await service.list(options.qs as IDataObject);
				return { ...answer, headers: date ? { date: service.date() } : {} };
			},
		},
	} as unknown as ApiContext;
}

const event = fc.record({
	create: fc.array(
		fc.record({
			status: fc.nat(2),
			hidden: fc.boolean(),
			template: fc.integer({ min: 1, max: 2 }),
		}),
		{ maxLength: 4 },
	),
	reveal: fc.array(fc.nat(50), { maxLength: 2 }),
	advance: fc.array(fc.nat(300), { maxLength: 12 }),
});

const specs = fc.record({
	initial: fc.record({
		count: fc.integer({ min: 0, max: 180 }),
		mix: fc.array(fc.nat(5), { minLength: 1, maxLength: 6 }),
		ties: fc.constantFrom(1, 1, 3, 40),
	}),
	events: fc.array(fc.oneof(fc.constant(undefined), event, event), { maxLength: 16 }),
	delays: fc.array(fc.nat(5), { minLength: 1, maxLength: 12 }),
	envelope: fc.constantFrom('data' as const, 'bare' as const),
	pageEnd: fc.constantFrom<PageEnd>('empty', '404', '422', 'last', 'ignore'),
	date: fc.boolean(),
}) as fc.Arbitrary<ServiceSpec>;

const filters = fc.constantFrom<Filter>(
	{},
	{ template: 1 },
	{ status: 'completed' },
	{ status: 'failed', template: 2 },
	{ status: 'processing' },
	{ status: 'uploaded' },
	{ status: 'processing', template: 1 },
);

/** Get Many's parameters for the filter: any status filter may gain and lose scans. */
function paging(filter: Filter) {
	const qs: IDataObject = {};
	if (filter.status) qs.status = filter.status;
	if (filter.template) qs.template_id = filter.template;
	return { qs, changes: filter.status ? ('any' as const) : ('grows' as const) };
}

async function check(spec: ServiceSpec, filter: Filter, limit?: number) {
	const service = new Service(spec);
	const watched = service.watch(filter);
	const { qs, changes } = paging(filter);
	let out: IDataObject[];
	try {
		out = await readPages.call(contextFor(service, spec.date === true), '/scans', qs, {
			changes,
			limit,
		});
	} catch (error) {
		const message = (error as Error).message;
		// A server that ignores `page` cannot be read past page 1: said, never silent. A server
		// that repeats its last page past the end looks the same while it holds exactly one
		// page, and so does the listing without filters: the error names both readings.
		const oneFullPage =
			spec.pageEnd === 'last' && service.sizes.has(PAGE) && service.unfiltered.has(PAGE);
		if (
			(spec.pageEnd === 'ignore' || oneFullPage) &&
			/seems to ignore the page parameter/.test(message)
		)
			return;
		// Only a listing that gains more records than can be paged through may fail so.
		if (/kept moving while it was read/.test(message)) return;
		throw error;
	}
	const ids = out.map((record) => Number(record.id));
	expect(new Set(ids).size).toBe(ids.length);
	expect(ids).toEqual([...ids].sort((a, b) => b - a));
	expect(ids.filter((id) => !watched.ever.has(id))).toEqual([]);
	const always = [...watched.always()];
	if (limit === undefined) {
		expect(always.filter((id) => !ids.includes(id))).toEqual([]);
	} else {
		// With a limit: no scan listed throughout is missing above the oldest one output.
		expect(ids.length).toBeLessThanOrEqual(limit);
		const oldest = Math.min(...ids);
		expect(always.filter((id) => id > oldest && !ids.includes(id))).toEqual([]);
	}
}

test('Return All: every scan that matched throughout comes out exactly once, whatever changes where', async () => {
	await fc.assert(
		fc.asyncProperty(specs, filters, async (spec, filter) => await check(spec, filter)),
		runs(SEED, 400),
	);
});

test('Limit: the newest scans, none listed throughout missing above the oldest one output', async () => {
	await fc.assert(
		fc.asyncProperty(
			specs,
			filters,
			fc.integer({ min: 1, max: 80 }),
			async (spec, filter, limit) => await check(spec, filter, limit),
		),
		runs(SEED, 200),
	);
});

test('the model itself: pages served in another order than asked, and changes between them, do happen', async () => {
	// Guards the test above against a model too tame to find anything.
	let reordered = 0;
	await fc.assert(
		fc.asyncProperty(specs, async (spec) => {
			const service = new Service({ ...spec, initial: { ...spec.initial, count: 120 } });
			const order: number[] = [];
			await Promise.all(
				[1, 2, 3, 4].map(async (page) => {
					await service.list({ page });
					order.push(page);
				}),
			);
			if (order.join() !== '1,2,3,4') reordered++;
		}),
		runs(SEED, 50),
	);
	expect(reordered).toBeGreaterThan(5);
});
