/**
 * Runs a Get Many case: Scan → Get Many with filters through n8n-core's engine against the
 * sandbox, while scans change status, are processed again, appear, or become visible late
 * during the read, and faults hit any listing request. Records which scans matched the filter
 * at the start, at the end, and which changed in between (invariant 10).
 */

import {
	DEFAULT_API_KEY,
	OUTCOMES,
	type Outcome,
	type Sandbox,
	type ScanRecord,
} from '../../sandbox/server';
import { runNode } from '../support/run-node';
import type { GetManyCase } from './cases';
import { allScans, type Execution, nodeRunOf, recordsOf, within } from './execution';
import { schedule } from './faults';
import { observeWire } from './observe';
import { getManyParameters, type GetManySettings } from './settings';
import { applyWorld } from './worlds';

const matches = (settings: GetManySettings) => (scan: ScanRecord) =>
	scan.accountId === 1 &&
	(settings.status === undefined || (scan.shownStatus ?? scan.status) === settings.status) &&
	(settings.template === undefined || scan.templateId === settings.template);

export async function runGetManyCase(sandbox: Sandbox, c: GetManyCase): Promise<Execution[]> {
	const { control } = sandbox;
	applyWorld(sandbox, c.world);
	const match = matches(c.settings);
	const scans = allScans(sandbox);
	const changed = new Set<number>();

	const hidden = scans
		.filter(match)
		.sort((a, b) => b.id - a.id)
		.slice(0, c.late.hidden)
		.map((s) => s.id);
	if (hidden.length > 0) {
		control.hideScans(hidden);
		control.duringListing(c.late.revealAfter, { reveal: hidden });
		hidden.forEach((id) => changed.add(id));
	}
	for (const change of c.changes) {
		const pool = scans.filter((s) => s.status === change.from).sort((a, b) => b.id - a.id);
		const ids = (change.pick === 'newest' ? pool : pool.reverse())
			.slice(0, change.count)
			.map((s) => s.id);
		if (ids.length === 0) continue;
		const final = (status: string) => (OUTCOMES as readonly string[]).includes(status);
		if (change.how === 'reprocess' && final(change.from) && final(change.to)) {
			control.atRequest(
				change.afterListRequests,
				{ method: 'GET', path: '^/scans$' },
				{
					reprocess: { ids, outcome: change.to as Outcome },
				},
			);
		} else {
			control.duringListing(change.afterListRequests, { status: { ids, status: change.to } });
		}
		ids.forEach((id) => changed.add(id));
	}
	const firstNew = scans.length + 1;
	for (const created of c.created)
		control.createScansDuringListing(created.afterListRequests, {
			count: created.count,
			status: created.status,
			template_id: created.template,
		});
	schedule(sandbox, c.faults, []);
	const start = scans.filter(match).map((s) => s.id);
	const logStart = control.requests().length;

	const wire = observeWire();
	const started = Date.now();
	const faultMs = c.faults.reduce((sum, f) => sum + f.times * 4_300, 0);
	const boundMs = 2 * (5_000 + 50 * Math.ceil(scans.length / 25) + faultMs) + 5_000;
	const outcome = await within(
		runNode({
			parameters: getManyParameters(c.settings),
			env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY, authHeader: c.world.authHeader },
			continueOnFail: c.settings.continueOnFail,
		}),
		boundMs,
	);
	const elapsedMs = Date.now() - started;
	wire.stop();
	control.clearFaults();
	control.clearActivity();

	const after = allScans(sandbox);
	for (const scan of after) if (scan.id >= firstNew) changed.add(scan.id);
	const end = after.filter(match).map((s) => s.id);
	const requests = control.requests().slice(logStart);
	const ran = nodeRunOf(outcome);
	const m = Math.max(start.length, end.length);
	const reach = c.settings.returnAll ? m : Math.min(m, c.settings.limit);
	const f = c.faults.reduce((sum, fault) => sum + fault.times, 0);
	const listings = requests.filter((r) => r.method === 'GET' && r.path === '/scans').length;
	return [
		{
			label: 'Get Many',
			op: 'getMany',
			...ran,
			inputs: 1,
			continueOnFail: c.settings.continueOnFail,
			boundMs,
			elapsedMs,
			requests,
			wire: wire.events,
			records: recordsOf(sandbox, ran.items),
			listing: { start, end, changed: [...changed] },
			/**
			 * Invariant 9, Scan → Get Many: GET /scans requests at most
			 *   3·(⌈M/25⌉ + 2) + 3·K + 4·F
			 * M the records matching the filter (the most at the start or the end; with a Limit, at
			 * most the Limit), K the scans that changed, appeared or became visible during the read,
			 * F the injected faults' uses. Not the account's size. Return All over a listing that
			 * does not change (K = F = 0), answered as the sandbox answers (no rewrites) and not
			 * with the last page again past the end: each page once plus at most 19 checks,
			 * ⌈M/25⌉ + 1 + 19 (360 pages: at most 380 requests).
			 */
			requestBound:
				changed.size === 0 &&
				f === 0 &&
				c.settings.returnAll &&
				c.world.pageEnd !== 'last' &&
				!c.world.rewrites?.length
					? {
							limit: Math.ceil(reach / 25) + 20,
							count: listings,
							what: 'GET /scans',
							formula: `⌈M=${reach}/25⌉ + 1 + 19 (nothing changed)`,
						}
					: {
							limit: 3 * (Math.ceil(reach / 25) + 2) + 3 * changed.size + 4 * f,
							count: listings,
							what: 'GET /scans',
							formula: `3·(⌈M=${reach}/25⌉ + 2) + 3·K=${changed.size} + 4·F=${f}`,
						},
		},
	];
}
