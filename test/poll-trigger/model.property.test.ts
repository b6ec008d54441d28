/**
 * Property-based test (fast-check, fixed seed) of the poll trigger over what the spec allows
 * (issue 25 §8), through n8n-core's PollContext (PollHarness) against the sandbox: between and
 * during polls scans are created (some visible only later), move on to other statuses, and the
 * service ends its listing in every way the spec leaves open, or ignores `page` for a while (a
 * poll that cannot list every new scan then fails saying so).
 *
 * Whatever happens: no scan ever starts the workflow twice; scans that were final before the
 * first activation never do; and once everything has finished and the service pages again,
 * every other scan that reached a final state has started it exactly once.
 */
import fc from 'fast-check';
import { PollContext } from 'n8n-core';

import { type Sandbox, startSandbox } from '../../sandbox/server';
import { runs } from '../support/property-runs';
import { emittedIds, makePoll } from './helpers';

const SEED = 20261126;
const FINAL = ['completed', 'validation_failed', 'failed'];

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => {
	// The warnings this test provokes on purpose (a server ignoring `page`) stay out of the output.
	jest.spyOn(PollContext.prototype, 'logger', 'get').mockReturnValue({
		warn: jest.fn(),
		info: jest.fn(),
		debug: jest.fn(),
		error: jest.fn(),
	} as never);
});
afterEach(() => jest.restoreAllMocks());

interface Step {
	create: Array<{ status: number; hidden: boolean }>;
	/** Indexes (mod the scans created so far) of scans whose status moves one step on. */
	advance: number[];
	/** An event while this poll reads the listing: at which listing request, and what. */
	during?: { after: number; create: number; advance: number[] };
	ignorePage: boolean;
}

const steps = fc.array(
	fc.record({
		create: fc.array(fc.record({ status: fc.nat(2), hidden: fc.boolean() }), { maxLength: 35 }),
		advance: fc.array(fc.nat(500), { maxLength: 25 }),
		during: fc.option(
			fc.record({
				after: fc.nat(3),
				create: fc.nat(30),
				advance: fc.array(fc.nat(500), { maxLength: 6 }),
			}),
			{ nil: undefined },
		),
		// The service ignores `page` during this poll (one poll in four).
		ignorePage: fc.oneof(
			fc.constant(false),
			fc.constant(false),
			fc.constant(false),
			fc.constant(true),
		),
	}),
	{ minLength: 1, maxLength: 6 },
) as fc.Arbitrary<Step[]>;

const scenarios = fc.record({
	initial: fc.array(fc.nat(2), { maxLength: 60 }),
	steps,
	envelope: fc.constantFrom('data' as const, 'bare' as const),
	pageEnd: fc.constantFrom('empty' as const, '404' as const, '422' as const, 'last' as const),
});

const STATUSES = ['uploaded', 'processing', 'completed'];

function nextStatus(status: string, pick: number): string {
	if (status === 'uploaded') return 'processing';
	if (status === 'processing') return FINAL[pick % 3];
	return status;
}

test('every scan that reaches a final state starts the workflow exactly once, whatever the listing does', async () => {
	await fc.assert(
		fc.asyncProperty(scenarios, async ({ initial, steps: plan, envelope, pageEnd }) => {
			sandbox.control.reset({ envelope });
			sandbox.control.setListing({ pageEnd });
			const created: number[] = [];
			const create = (status: string, count = 1) => {
				const ids = count > 0 ? sandbox.control.seedScans({ count, status: status as never }) : [];
				created.push(...ids);
				return ids;
			};
			const statusOf = (id: number) => sandbox.control.getScan(id)!.status as string;
			for (const status of initial) create(STATUSES[status]);
			const history = created.filter((id) => FINAL.includes(statusOf(id)));

			const trigger = await makePoll(sandbox);
			await trigger.activate();
			const emitted: number[] = [];
			let hidden: number[] = [];

			for (const step of plan) {
				// Scans hidden at the poll before become visible now (within the window).
				sandbox.control.revealScans(hidden);
				hidden = [];
				for (const scan of step.create) {
					const [id] = create(STATUSES[scan.status]);
					if (scan.hidden) hidden.push(id);
				}
				sandbox.control.hideScans(hidden);
				for (const index of step.advance) {
					if (created.length === 0) break;
					const id = created[index % created.length];
					sandbox.control.setScanStatus(id, nextStatus(statusOf(id), index));
				}
				if (step.during && created.length > 0) {
					const ids = step.during.advance.map((index) => created[index % created.length]);
					const moving = ids.filter((id) => statusOf(id) === 'processing');
					sandbox.control.duringListing(step.during.after, {
						create: step.during.create > 0 ? { count: step.during.create } : undefined,
						status: moving.length ? { ids: moving, status: 'completed' } : undefined,
					});
				}
				sandbox.control.setListing({ ignorePage: step.ignorePage });
				// A poll that could not list every new scan fails saying so (and emits nothing).
				const polled = await trigger.poll().catch((error: Error) => {
					if (step.ignorePage && /could not be listed; nothing was emitted/.test(error.message))
						return null;
					throw error;
				});
				emitted.push(...emittedIds(polled));
			}

			// The end: the service pages, every scan is visible and finished (events still queued for
			// a listing request may create more); quiet polls catch up.
			sandbox.control.setListing({ ignorePage: false });
			sandbox.control.revealScans(hidden);
			for (let quiet = 0, polls = 0; quiet < 2 && polls < 12; polls++) {
				for (let id = 1; id <= maxScanId(); id++)
					while (!FINAL.includes(statusOf(id)))
						sandbox.control.setScanStatus(id, nextStatus(statusOf(id), id));
				const out = emittedIds(await trigger.poll());
				emitted.push(...out);
				quiet = out.length === 0 ? quiet + 1 : 0;
			}
			const all = maxScanId();

			expect(new Set(emitted).size).toBe(emitted.length);
			const expected = [];
			for (let id = 1; id <= all; id++) if (!history.includes(id)) expected.push(id);
			expect([...emitted].sort((a, b) => a - b)).toEqual(expected);
		}),
		runs(SEED, 40),
	);
	// About 7 s on two idle cores; the bound leaves room for a loaded machine.
}, 300_000);

/** The highest scan ID (scans created by `duringListing` included). */
function maxScanId(): number {
	let id = 0;
	while (sandbox.control.getScan(id + 1)) id++;
	return id;
}
