/**
 * Runs a poll case: the poll trigger activated in n8n-core's PollContext (test/support/
 * poll-harness.ts, which saves static data as n8n does), then rounds of scans appearing,
 * finishing, visible late, faults, polls and restarts, and polls at the end. Counts in how many
 * polls each scan came out (invariant 8).
 *
 * The end: every scan visible, `page` answered (a server that ignored it now reads it), no
 * answer rewritten, and polls until two in a row emit nothing. What the trigger held back (scans
 * it could not list, the brief records it reads 25 a poll) must come out then, each once: held,
 * never lost.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox } from '../../sandbox/server';
import { PollHarness } from '../support/poll-harness';
import type { PollCase } from './cases';
import {
	allScans,
	type Execution,
	FINAL,
	type Observation,
	recordsOf,
	scanIdsOf,
	until,
	within,
} from './execution';
import { schedule } from './faults';
import { observeWire } from './observe';
import { type TriggerSettings, triggerParameters } from './settings';
import { applyWorld } from './worlds';

/** The scans a trigger with these settings starts the workflow for. */
export function wanted(settings: TriggerSettings, status: string): boolean {
	if (status === 'failed') return settings.events.includes('scan.failed');
	if (status === 'completed') return settings.events.includes('scan.completed');
	return (
		status === 'validation_failed' &&
		settings.events.includes('scan.completed') &&
		settings.includeValidationFailed
	);
}

export async function runPollCase(sandbox: Sandbox, c: PollCase): Promise<Observation> {
	const { control } = sandbox;
	applyWorld(sandbox, c.world);
	let harness = await PollHarness.create({
		parameters: triggerParameters(c.settings, false),
		env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY, authHeader: c.world.authHeader },
	});
	let firstNew = allScans(sandbox).length + 1;
	const executions: Execution[] = [];
	const times: Record<number, number> = {};
	let hidden: number[] = [];
	/** Scans a poll listed in full: up to here (a failed poll, or one under a server that ignores `page`, leaves them new). */
	let seen = allScans(sandbox).length;
	/** `seen` when static data was last saved (n8n saves it at activation and when a poll emits). */
	let seenSaved = seen;

	const poll = async (
		label: string,
		activation: boolean,
		faults: PollCase['rounds'][number]['faults'],
	) => {
		const scans = allScans(sandbox);
		const fresh = scans.length - seen;
		// The scans the trigger may follow: unfinished ones, and finished ones it wants but has not
		// emitted yet (a poll reads at most 25 listed without every field by ID; the others wait).
		const open = scans.filter(
			(s) =>
				!FINAL.includes(s.status) ||
				(s.id >= firstNew && wanted(c.settings, s.status) && !times[s.id]),
		);
		const unfinished = open.length;
		// How deep the oldest of them lies (scans newer than it): the poll may read down to it.
		const depth = open.length === 0 ? 0 : scans.length - open[0].id + 1;
		// n8n polls at most once a minute: a minute passes before each poll, for the back-off of a
		// scan whose read failed (state.ts `stuck`, first pause 1 min) as in n8n.
		if (!activation) {
			const stuck = (harness.nodeStaticData.stuck ?? {}) as Record<string, { nextAt: number }>;
			for (const entry of Object.values(stuck)) entry.nextAt -= 60_000;
		}
		schedule(sandbox, faults, []);
		const logStart = control.requests().length;
		const wire = observeWire();
		const faultMs = faults.reduce((sum, f) => sum + f.times * 4_300, 0);
		const boundMs = 2 * (5_000 + faultMs) + 5_000;
		const started = Date.now();
		const outcome = await within(
			(activation ? harness.activate() : harness.poll()).then(
				(items) => ({ items: items ?? [], error: undefined }),
				(error: Error) => ({ items: [], error }),
			),
			boundMs,
		);
		wire.stop();
		control.clearFaults();
		const items = outcome.done ? outcome.value.items.map((item) => item.json) : [];
		const error = outcome.done ? outcome.value.error : undefined;
		if (outcome.done && !error && !control.listing().ignorePage) seen = scans.length;
		if (activation || items.length > 0) seenSaved = seen;
		for (const id of new Set(items.flatMap(scanIdsOf))) times[id] = (times[id] ?? 0) + 1;
		const requests = control.requests().slice(logStart);
		const f = faults.reduce((sum, fault) => sum + fault.times, 0);
		executions.push({
			label,
			op: 'poll',
			items,
			paired: items.map(() => 0),
			inputs: 0,
			continueOnFail: false,
			...(error ? { error: { message: error.message } } : {}),
			timedOut: !outcome.done,
			boundMs,
			elapsedMs: Date.now() - started,
			requests,
			wire: wire.events,
			records: recordsOf(sandbox, items),
			/**
			 * Invariant 9, poll trigger: GET /scans requests of one poll at most
			 *   2·(⌈(N + U)/25⌉ + 2) + min(40, ⌈D/25⌉) + 4·F   (the activation: 42 + 4·F, its window)
			 * N scans created since the poll before (after a restart: since static data was last
			 * saved), U scans not finished or not emitted yet (the ones it may follow),
			 * D how deep the oldest of them lies (it reads at most 40 pages down to followed scans),
			 * F the injected faults' uses. Not the account's size.
			 */
			requestBound: activation
				? {
						limit: 42 + 4 * f,
						count: requests.filter((r) => r.method === 'GET' && r.path === '/scans').length,
						what: 'GET /scans',
						formula: `42 (the activation's window: 40 pages and 2) + 4·F=${f}`,
					}
				: {
						limit:
							2 * (Math.ceil((fresh + unfinished) / 25) + 2) +
							Math.min(40, Math.ceil(depth / 25)) +
							4 * f,
						count: requests.filter((r) => r.method === 'GET' && r.path === '/scans').length,
						what: 'GET /scans',
						formula: `2·(⌈(N=${fresh} + U=${unfinished})/25⌉ + 2) + min(40, ⌈D=${depth}/25⌉) + 4·F=${f}`,
					},
		});
	};

	// An activation whose poll fails leaves the workflow inactive (n8n-core rethrows the activation's
	// poll): nothing polls until an activation succeeds, and it starts from the scans made by then.
	let active = false;
	const activate = async (label: string) => {
		// Scans not visible yet lie above every scan the activation sees: they are new to it.
		const from = Math.min(allScans(sandbox).length + 1, ...hidden);
		await poll(label, true, []);
		active = executions[executions.length - 1].error === undefined;
		if (active) firstNew = from;
	};
	await activate('activation');
	for (const [index, round] of c.rounds.entries()) {
		if (hidden.length > 0) control.revealScans(hidden);
		const made: number[] = [];
		for (const part of round.finished)
			made.push(
				...control.seedScans({
					count: part.count,
					status: part.status,
					template_id: part.template,
				}),
			);
		if (round.processing > 0) {
			const from = allScans(sandbox).length + 1;
			control.otherClients({ uploads: { count: round.processing, status: 'processing' } });
			for (let id = from; id < from + round.processing; id++) made.push(id);
			await until(() => made.every((id) => FINAL.includes(control.getScan(id)?.status ?? '')));
		}
		hidden = made.sort((a, b) => b - a).slice(0, round.hidden);
		if (hidden.length > 0) control.hideScans(hidden);
		if (active) await poll(`poll ${index + 1}`, false, round.faults);
		else await activate(`activation again ${index + 1}`);
		// n8n restarted: the static data as last saved (a poll that emitted nothing saved nothing).
		if (round.restart) {
			harness = await harness.restart();
			// The next poll reads from the state last saved: every scan made since then is new to it.
			seen = seenSaved;
		}
	}
	if (hidden.length > 0) control.revealScans(hidden);
	// Later: the back-off after a scan's failed read (1 min, state.ts) has passed.
	for (const entry of Object.values(
		(harness.nodeStaticData.stuck ?? {}) as Record<string, IDataObject>,
	))
		entry.nextAt = 0;
	control.setListing({ ignorePage: false });
	// The front server answers as the service does again: a listing redirected or emptied for
	// ever would hold every scan back, which is no fault of the trigger's.
	control.setRewrites([]);
	const made = allScans(sandbox).length - firstNew + 1;
	for (let n = 1, quiet = 0; active && quiet < 2 && n <= 2 + Math.ceil(made / 25); n++) {
		const before = executions.length;
		await poll(`poll ${n} after the rounds`, false, []);
		quiet = executions[before].items.length === 0 ? quiet + 1 : 0;
	}

	const expected = allScans(sandbox)
		.filter((s) => active && s.id >= firstNew && wanted(c.settings, s.status))
		.map((s) => s.id);
	return { executions, emitted: { expected, times } };
}
