/**
 * Runs an upload case: Manual Trigger → Scan → Upload through n8n-core's engine against the
 * sandbox (test/support/run-node.ts), once per run of the case (a batch, then re-runs), with
 * the run's faults and other clients' activity scheduled against the node's requests.
 */
import { createHash } from 'node:crypto';

import { DEFAULT_API_KEY, type Sandbox } from '../../sandbox/server';
import { binaryItem } from '../support/fixtures';
import { runNode } from '../support/run-node';
import type { UploadCase, UploadRun } from './cases';
import { allScans, type Execution, FINAL, nodeRunOf, recordsOf, until, within } from './execution';
import { type FaultDraw, schedule } from './faults';
import { observeWire, watchAfterEnd } from './observe';
import { type UploadSettings, uploadParameters, WAIT } from './settings';
import { applyWorld } from './worlds';

/** File names the documents are given (several contents may share one). */
export const NAMES = [
	'invoice-a.pdf',
	'invoice-b.pdf',
	'scan.pdf',
	'invalid-c.pdf',
	'fail-d.pdf',
	'dir/e.pdf',
	'Rechnung Müller.pdf',
];

/** The same bytes for the same document in every run of a case. */
export const docBytes = (doc: number): Buffer => Buffer.from(`%PDF-1.4\n% gen-doc-${doc}\n%%EOF\n`);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const HOUR = 60 * 60 * 1000;

/**
 * Invariant 5, Scan → Upload: the execution ends within
 *   T = 4 s + 0.2 s·n + (Wait for Completion ? Wait Timeout : 0) + Σ over injected faults of
 *       times × (lost answer 3 s | 5xx 4.3 s | 429 with Retry-After r: r + 0.1 s | latency 0.03 s),
 * and is called unended after 2T + 5 s (a shared 2-core machine may be slow, never that slow).
 */
export function uploadTimeBound(settings: UploadSettings, run: UploadRun): number {
	const faults = run.faults.reduce((sum, f) => sum + f.times * faultCostMs(f), 0);
	const t =
		4_000 +
		200 * run.docs.length +
		(settings.waitForCompletion ? WAIT.waitTimeout * 1000 : 0) +
		faults;
	return 2 * t + 5_000;
}

function faultCostMs(fault: FaultDraw): number {
	if (fault.kind === 'drop' || fault.kind === 'dropAfterCommit') return 3_000;
	if (fault.kind === 'latency') return 30;
	if (fault.kind === 'status' && (fault.status ?? 500) >= 500) return 4_300;
	if (fault.kind === 'status' && fault.status === 429) return (fault.retryAfter ?? 0) * 1000 + 100;
	return 0;
}

export async function runUploadCase(sandbox: Sandbox, c: UploadCase): Promise<Execution[]> {
	applyWorld(sandbox, c.world);
	const executions: Execution[] = [];
	for (const [index, run] of c.runs.entries()) {
		// The scans of the run before have finished (a re-run meets them as the service keeps them).
		await until(() => allScans(sandbox).every((s) => !s.charged || FINAL.includes(s.status)));
		if (run.laterMs > 0) sandbox.control.advanceClock(run.laterMs);
		executions.push(await uploadRun(sandbox, c, run, index + 1));
	}
	return executions;
}

async function uploadRun(
	sandbox: Sandbox,
	c: UploadCase,
	run: UploadRun,
	number: number,
): Promise<Execution> {
	const { control } = sandbox;
	const before = allScans(sandbox);
	const now = Date.parse(control.advanceClock(0));
	const inHour = before.filter((s) => s.createdAt > now - HOUR).length;
	const docs = run.docs.map((d) => sha256(docBytes(d.doc)));
	const logStart = control.requests().length;
	schedule(sandbox, run.faults, run.activity);
	const wire = observeWire();
	const leftBehind = watchAfterEnd();
	const items = run.docs.map((d) =>
		binaryItem(docBytes(d.doc), NAMES[d.name % NAMES.length], 'application/pdf', {
			doc: d.doc,
			onDuplicate: d.onDuplicate,
		}),
	);
	const started = Date.now();
	const boundMs = uploadTimeBound(c.settings, run);
	const outcome = await within(
		leftBehind.run(() =>
			runNode({
				parameters: uploadParameters(c.settings),
				items,
				env: {
					baseUrl: sandbox.baseUrl,
					apiKey: DEFAULT_API_KEY,
					authHeader: c.world.authHeader,
				},
				continueOnFail: c.settings.continueOnFail,
				typeVersion: c.settings.version,
			}),
		),
		boundMs,
	);
	leftBehind.end();
	const elapsedMs = Date.now() - started;
	wire.stop();
	control.clearFaults();
	control.clearActivity();
	const requests = control.requests().slice(logStart);
	// A scan that fails gives its credit back (the spec): once the scans made have finished,
	// those are not paid scans (invariant 2).
	const made = requests.flatMap((r) => (r.scanId === undefined ? [] : [r.scanId]));
	const final = (id: number) => FINAL.includes(control.getScan(id)?.status ?? 'failed');
	await until(() => made.every(final));
	// An execution that stopped may have left work running: it starts within milliseconds.
	if (outcome.done && outcome.value.error) await until(() => leftBehind.seen() > 0, 100);
	const refunded = made.filter((id) => control.getScan(id)?.charged === false);
	const lateRequests = leftBehind.stop();
	const ran = nodeRunOf(outcome);
	const after = allScans(sandbox);
	return {
		label: `upload run ${number}`,
		op: 'upload',
		...ran,
		inputs: items.length,
		continueOnFail: c.settings.continueOnFail,
		boundMs,
		elapsedMs,
		...(outcome.done ? { lateRequests } : {}),
		requests,
		wire: wire.events,
		records: recordsOf(sandbox, ran.items),
		docs,
		refunded,
		requestBound: listingBound(c.settings, run, {
			created: after.length - before.length,
			inHour,
			depth: depthOf(before, docs),
			elapsedMs,
			requests: requests.filter((r) => r.method === 'GET' && r.path === '/scans').length,
		}),
	};
}

/** How deep (scans of template 1 newer than it) the deepest scan holding one of the files lies. */
function depthOf(
	scans: Array<{ id: number; templateId: number; contentSha256: string; status: string }>,
	docs: string[],
): number {
	const template = scans.filter((s) => s.templateId === 1).sort((a, b) => b.id - a.id);
	let depth = 0;
	template.forEach((scan, index) => {
		if (
			docs.includes(scan.contentSha256) &&
			FINAL.concat('uploaded', 'processing').includes(scan.status)
		)
			depth = Math.max(depth, index + 1);
	});
	return depth;
}

/**
 * Invariant 9, Scan → Upload: GET /scans requests (listings, with or without template_id) at most
 *   9 + 4·(⌈(n + c + h)/25⌉ + 2) + ⌈d/25⌉ + 2 + w·(⌈(n + c)/25⌉ + 1) + 4·F
 * n items, c scans created at the service during the execution (by anyone), h scans created in
 * the hour before it, d the depth in template 1's listing of the deepest scan holding one of the
 * batch's files, w waiting rounds (⌈elapsed / 0.2 s⌉ with Wait for Completion, else 0), F the
 * injected faults' uses (each may be retried 3 times). 9: the hour's 200 uploads read at 25 a
 * page. Nothing in it grows with the account's size.
 */
function listingBound(
	settings: UploadSettings,
	run: UploadRun,
	facts: { created: number; inHour: number; depth: number; elapsedMs: number; requests: number },
): Execution['requestBound'] {
	const n = run.docs.length;
	const c = facts.created;
	const w = settings.waitForCompletion ? Math.ceil(facts.elapsedMs / 200) : 0;
	const f = run.faults.reduce((sum, fault) => sum + fault.times, 0);
	const limit =
		9 +
		4 * (Math.ceil((n + c + facts.inHour) / 25) + 2) +
		Math.ceil(facts.depth / 25) +
		2 +
		w * (Math.ceil((n + c) / 25) + 1) +
		4 * f;
	return {
		limit,
		count: facts.requests,
		what: 'GET /scans',
		formula: `9 + 4·(⌈(n=${n} + c=${c} + h=${facts.inHour})/25⌉ + 2) + ⌈d=${facts.depth}/25⌉ + 2 + w=${w}·(⌈(n + c)/25⌉ + 1) + 4·F=${f}`,
	};
}
