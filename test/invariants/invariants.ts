/**
 * The ten invariants of issue 31 §3, checked after every generated case. Each takes what the
 * case left behind (execution.ts) and returns what it broke, worded for the printed test.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ScanRecord } from '../../sandbox/server';
import type { Case } from './cases';
import { type Execution, FINAL, type Observation, scanIdsOf } from './execution';
import { toolAnswersSafe } from './run-tool';

/** JSON with sorted keys: equal values compare equal whatever their key order or realm. */
function canonical(value: unknown): string {
	return JSON.stringify(value, (_key, v: unknown) =>
		v && typeof v === 'object' && !Array.isArray(v)
			? Object.fromEntries(Object.entries(v as object).sort(([a], [b]) => a.localeCompare(b)))
			: v,
	);
}
const sameJson = (a: unknown, b: unknown) => canonical(a) === canonical(b);

export interface Violation {
	invariant: number;
	/** Which execution of the case. */
	where: string;
	detail: string;
}

export const INVARIANTS: Record<number, string> = {
	1: "no request carrying the key reaches an origin other than the Base URL's",
	2: 'every charged scan is in an output item or named in the stop error; no output says "no credit was used" for a charged scan',
	3: 'no item is given a scan that holds another document',
	4: 'with Continue On Fail, N items in give N paired items out, each failure as { error }',
	5: 'every execution ends within its stated bound',
	6: 'every final scan in any output or emitted item carries what GET /scans/{id} gives',
	7: 'after the first 429/402, no new upload is sent',
	8: 'every finished scan is emitted once by the poll trigger; every delivery of a wanted result within the replay tolerance runs, once; the webhook trigger holds one webhook, writes no static data on a delivery, asks the service nothing for a forged one, and still verifies deliveries',
	9: 'requests are bounded by the work, not by the account size',
	10: 'Get Many returns every record that matched its filter from start to end of the read, each once',
	11: 'every tool answer is within its bound, and no answer or error holds a secret, the API key, the service’s host or its page',
};

export interface Origins {
	/** The Base URL's origin, e.g. http://127.0.0.1:4000 */
	base: string;
}

type Check = (c: Case, obs: Observation, origins: Origins) => Violation[];

const at = (execution: Execution) => execution.label;

/** 1. The key stays at the Base URL's origin: what the sandbox's other origin received, and what the node sent. */
const keyStaysHome: Check = (_c, obs, origins) =>
	obs.executions.flatMap((e) => {
		const found: Violation[] = [];
		for (const r of e.requests)
			if (r.origin === 'other' && r.authScheme !== 'none')
				found.push({
					invariant: 1,
					where: at(e),
					detail: `${r.method} ${r.path} reached the other origin with the key (${r.authScheme})`,
				});
		for (const w of e.wire)
			if (w.phase === 'sent' && w.keyed && w.origin !== origins.base && !found.length)
				found.push({
					invariant: 1,
					where: at(e),
					detail: `the node sent ${w.method} ${w.origin}${w.path} with the key`,
				});
		return found;
	});

/** Whether `value` names scan `id`: as a number under an ID-like key, or in words ("scan 12", "scan IDs 7, 12"). */
export function names(value: unknown, id: number, key = ''): boolean {
	if (typeof value === 'number') return value === id && /id|scan|candidate/i.test(key);
	// In words: the ID after "scan"/"scans" in the same sentence ("made since …: 53", "scan IDs 7, 53").
	if (typeof value === 'string')
		return new RegExp(`scans?\\b(?:(?!\\. ).){0,100}?(?<![\\d.])${id}(?![\\d])`, 'i').test(value);
	if (Array.isArray(value)) return value.some((v) => names(v, id, key));
	if (value && typeof value === 'object')
		return Object.entries(value).some(([k, v]) => names(v, id, k));
	return false;
}

/**
 * Whether the listing an upload's scan is looked for in could not be read in this execution:
 * a fault hit a listing request, or the service ignores `page` (nothing past page 1 is known).
 */
const listingUnreadable = (c: Case, e: Execution) =>
	(c.kind !== 'tool' && c.world.ignorePage) ||
	e.requests.some((r) => r.method === 'GET' && r.path === '/scans' && r.fault);

/**
 * Whether the upload of item `index` is said to be of unknown outcome with its candidates
 * unknown (`candidateScanIds: null`): in its item under Continue On Fail, or in the stop error's
 * `uncertainUploads` and its text.
 */
function unknownOutcome(e: Execution, index: number): boolean {
	const unknown = (entry: IDataObject) => entry.candidateScanIds === null;
	if (
		e.items.some(
			(item, i) => e.paired[i] === index && item.outcomeUnknown === true && unknown(item),
		)
	)
		return true;
	const uncertain = (e.error?.context?.uncertainUploads ?? []) as IDataObject[];
	return (
		uncertain.some((entry) => entry.itemIndex === index && unknown(entry)) &&
		new RegExp(`\\bitem ${index}\\b`, 'i').test(`${e.error?.message} ${e.error?.description ?? ''}`)
	);
}

/**
 * 2. Every scan an upload created, and still paid for (a failed scan gives its credit back), is
 * in an item or named by the stop error; or, where the listing could not be read, the upload of
 * its file is said to be of unknown outcome with its candidates unknown.
 */
const paidScansNamed: Check = (c, obs) =>
	obs.executions
		.filter((e) => e.op === 'upload' && !e.timedOut)
		.flatMap((e) => {
			const found: Violation[] = [];
			const created = e.requests.filter((r) => r.scanId !== undefined);
			for (const r of created) {
				const id = r.scanId!;
				if (e.refunded?.includes(id)) continue;
				// The stop error names it in what the user reads and in its context (issue 31 §3.2).
				const stopNames =
					e.error !== undefined &&
					names(`${e.error.message} ${e.error.description ?? ''}`, id) &&
					names(e.error.context ?? {}, id);
				if (e.items.some((item) => names(item, id)) || stopNames) continue;
				const own = (e.docs ?? []).flatMap((doc, index) =>
					doc === r.contentSha256 ? [index] : [],
				);
				if (listingUnreadable(c, e) && own.some((index) => unknownOutcome(e, index))) continue;
				found.push({
					invariant: 2,
					where: at(e),
					detail: `scan ${id} was charged (its POST /scans answered ${r.status ?? 'nothing'}${r.fault ? `, ${r.fault}` : ''}) but no output item names it, nor the stop error in its text and its context${e.error ? `; the error: "${e.error.message}", context ${JSON.stringify(e.error.context ?? null).slice(0, 200)}` : ''}`,
				});
			}
			e.items.forEach((item, index) => {
				const doc = e.docs?.[e.paired[index]];
				const ownCharge = created.some(
					(r) => r.contentSha256 === doc && !e.refunded?.includes(r.scanId!),
				);
				const once = e.docs?.filter((d) => d === doc).length === 1;
				if (ownCharge && once && /no credit (was|is|has been) used/i.test(JSON.stringify(item)))
					found.push({
						invariant: 2,
						where: at(e),
						detail: `item ${e.paired[index]} says "no credit was used", but its file was charged in this execution (scan ${created.find((r) => r.contentSha256 === doc)?.scanId})`,
					});
			});
			return found;
		});

/** 3. An item's scan holds the item's own file. */
const ownDocument: Check = (_c, obs) =>
	obs.executions
		.filter((e) => e.op === 'upload')
		.flatMap((e) =>
			e.items.flatMap((item, index) => {
				const doc = e.docs?.[e.paired[index]];
				return scanIdsOf(item)
					.filter((id) => e.records[id] && doc && e.records[id].contentSha256 !== doc)
					.map((id) => ({
						invariant: 3,
						where: at(e),
						detail: `item ${e.paired[index]} was given scan ${id}, which holds another document`,
					}));
			}),
		);

/** 4. Continue On Fail: one paired item per input (more with rows), each a scan or { error }, never the input passed through. */
const pairedItems: Check = (c, obs) =>
	obs.executions
		.filter((e) => e.continueOnFail && !e.timedOut && (e.op === 'upload' || e.op === 'getMany'))
		.flatMap((e) => {
			const found: Violation[] = [];
			const rows =
				c.kind === 'upload' && c.settings.waitForCompletion && c.settings.output === 'rows';
			if (e.op === 'upload')
				for (let i = 0; i < e.inputs; i++) {
					const count = e.paired.filter((p) => p === i).length;
					if (count === 0 || (!rows && count > 1))
						found.push({
							invariant: 4,
							where: at(e),
							detail: `input item ${i} got ${count} output items (${e.inputs} in, ${e.items.length} out)`,
						});
				}
			e.items.forEach((item, index) => {
				if (item.error === undefined && scanIdsOf(item).length === 0)
					found.push({
						invariant: 4,
						where: at(e),
						detail: `output item ${index} (paired to ${e.paired[index]}) is neither a scan nor { error }: ${JSON.stringify(item).slice(0, 160)}`,
					});
			});
			if (e.error)
				found.push({
					invariant: 4,
					where: at(e),
					detail: `the node failed as a whole under Continue On Fail: ${e.error.message}`,
				});
			return found;
		});

/** 5. Every execution ends within its bound, and nothing of it goes on after it returned. */
const ends: Check = (_c, obs) =>
	obs.executions.flatMap((e) => [
		...(e.timedOut
			? [
					{
						invariant: 5,
						where: at(e),
						detail: `the execution had not ended after ${e.boundMs} ms (its bound)`,
					},
				]
			: []),
		...(e.lateRequests?.length
			? [
					{
						invariant: 5,
						where: at(e),
						detail: `the execution returned, but its work went on: ${e.lateRequests.length} request(s) after it, first ${e.lateRequests[0]}`,
					},
				]
			: []),
	]);

/** The rows a scan's tables give (at least one item per scan). */
function rowsOf(data: IDataObject | null): number {
	let rows = 0;
	for (const value of Object.values(data ?? {}))
		if (Array.isArray(value) && value.every((row) => row && typeof row === 'object'))
			rows += value.length;
	return Math.max(1, rows);
}

const ADDED = new Set([
	'scan_id',
	'status',
	'template_id',
	'filename',
	'confidence',
	'reviewed',
	'reviewedFields',
]);

/** What is missing or different in an item that shows a final scan, against its record. */
function dataGap(item: IDataObject, record: ScanRecord, rowCount: number): string | undefined {
	const data = item.data as IDataObject | undefined;
	const shown = (data?.status ?? item.status) as string | undefined;
	if (!shown || !FINAL.includes(shown) || shown !== record.status) return undefined;
	const expected = record.extractedData as IDataObject | null;
	if (record.status === 'failed') return undefined;
	if (item.table !== undefined || item.row_number !== undefined) {
		const want = rowsOf(expected);
		return rowCount === want ? undefined : `${rowCount} row items where the scan has ${want}`;
	}
	if (data) {
		if (item.table !== undefined) return undefined;
		return sameJson(data.extracted_data, expected)
			? undefined
			: `data.extracted_data is ${JSON.stringify(data.extracted_data) ?? 'missing'}`;
	}
	if (item.id !== undefined && item.scan_id === undefined)
		return sameJson(item.extracted_data, expected)
			? undefined
			: `extracted_data is ${JSON.stringify(item.extracted_data) ?? 'missing'}`;
	const missing = Object.keys(expected ?? {}).filter(
		(key) => !ADDED.has(key) && !sameJson(item[key], expected?.[key]),
	);
	return missing.length === 0 ? undefined : `fields ${missing.join(', ')} missing or different`;
}

/** 6. A final scan in any output or emitted item carries what GET /scans/{id} gives. */
const finalScansCarryData: Check = (_c, obs) =>
	obs.executions
		.filter((e) => e.op !== 'webhook')
		.flatMap((e) => {
			const found: Violation[] = [];
			const seen = new Set<number>();
			for (const item of e.items)
				for (const id of scanIdsOf(item)) {
					const record = e.records[id];
					if (!record || seen.has(id)) continue;
					seen.add(id);
					const rowCount = e.items.filter((other) => scanIdsOf(other).includes(id)).length;
					const gap = dataGap(item, record, rowCount);
					if (gap)
						found.push({
							invariant: 6,
							where: at(e),
							detail: `scan ${id} is output as ${record.status}, but ${gap}`,
						});
				}
			return found;
		});

/** 7. After the node heard the first 429 or 402 to an upload, it sends no new upload (a Retry-After it waits out once excepted). */
const noUploadAfterStop: Check = (_c, obs) =>
	obs.executions
		.filter((e) => e.op === 'upload')
		.flatMap((e) => {
			const upload = (w: (typeof e.wire)[number]) => w.method === 'POST' && /\/scans$/.test(w.path);
			const stop = e.wire.find(
				(w) => w.phase === 'heard' && upload(w) && (w.status === 429 || w.status === 402),
			);
			if (!stop) return [];
			const waits = stop.status === 429 && stop.retryAfter !== undefined && stop.retryAfter <= 60;
			const after = e.wire.filter(
				(w) =>
					w.phase === 'sent' &&
					upload(w) &&
					w.seq > stop.seq &&
					!(waits && w.atMs >= stop.atMs + stop.retryAfter! * 1000 - 50),
			);
			return after.length === 0
				? []
				: [
						{
							invariant: 7,
							where: at(e),
							detail: `${after.length} upload(s) sent after the node heard HTTP ${stop.status}${stop.retryAfter !== undefined ? ` (Retry-After ${stop.retryAfter})` : ''}; ${e.wire.filter((w) => w.phase === 'sent' && upload(w)).length} uploads in all`,
						},
					];
		});

/** 8. Triggers: each finished scan emitted once; each distinct result run once; deliveries still verified. */
const triggersOnce: Check = (c, obs) => {
	const found: Violation[] = [];
	if (obs.emitted) {
		const { expected, times } = obs.emitted;
		// Every one, also under a server that ignored `page` during the rounds: the case ends with
		// a server that answers it (run-poll.ts), so what was held back must come out then.
		for (const id of expected)
			if ((times[id] ?? 0) !== 1)
				found.push({
					invariant: 8,
					where: 'poll trigger',
					detail: `scan ${id} came out ${times[id] ?? 0} times`,
				});
		for (const [id, count] of Object.entries(times))
			if (!expected.includes(Number(id)))
				found.push({
					invariant: 8,
					where: 'poll trigger',
					detail: `scan ${id} came out ${count} times though it is not a scan the trigger's settings want (or finished before the activation)`,
				});
	}
	// The delivery model (README, trigger): at least once. Each delivery within the replay
	// tolerance runs, once; one beyond it is answered 200 and runs nothing (never a refusal that
	// costs the webhook).
	for (const result of obs.delivered ?? []) {
		const what = `result ${result.identity.slice(0, 120)}`;
		if (result.wanted && result.executions < result.timely)
			found.push({
				invariant: 8,
				where: 'webhook trigger',
				detail: `${what} was delivered ${result.deliveries} time(s), ${result.timely} within the replay tolerance, and ran ${result.executions} time(s): ${result.answers.join(' | ')}`,
			});
		if (result.retiredRun > 0)
			found.push({
				invariant: 8,
				where: 'webhook trigger',
				detail: `${what}: ${result.retiredRun} delivery(ies) signed by a deleted webhook's secret started an execution`,
			});
		if (result.executions > result.deliveries)
			found.push({
				invariant: 8,
				where: 'webhook trigger',
				detail: `${what} ran ${result.executions} times from ${result.deliveries} deliveries`,
			});
		if (!result.wanted && result.executions > 0)
			found.push({
				invariant: 8,
				where: 'webhook trigger',
				detail: `${what} ran though the trigger's settings leave it out`,
			});
		if (result.lateRun > 0)
			found.push({
				invariant: 8,
				where: 'webhook trigger',
				detail: `${what}: ${result.lateRun} delivery(ies) signed beyond the replay tolerance started an execution`,
			});
		if (result.lateRefused.length > 0)
			found.push({
				invariant: 8,
				where: 'webhook trigger',
				detail: `${what}: a late delivery was refused (it counts against the webhook at the service): ${result.lateRefused.join(' | ')}`,
			});
	}
	const trigger = obs.trigger;
	if (trigger && trigger.deliveryWrites > 0)
		found.push({
			invariant: 8,
			where: 'webhook trigger',
			detail: `${trigger.deliveryWrites} delivery(ies) wrote the workflow's static data (n8n writes it back whole, unlocked)`,
		});
	if (trigger && trigger.webhooksAtUrl.some((count) => count !== 1))
		found.push({
			invariant: 8,
			where: 'webhook trigger',
			detail: `webhooks at the trigger's URL after each activation: ${trigger.webhooksAtUrl.join(', ')} (one per trigger)`,
		});
	if (trigger && trigger.forgedRequests > 0)
		found.push({
			invariant: 8,
			where: 'webhook trigger',
			detail: `forged requests to the trigger made ${trigger.forgedRequests} request(s) to the service`,
		});
	if (obs.lastDelivery && !obs.lastDelivery.executed)
		found.push({
			invariant: 8,
			where: 'webhook trigger',
			detail: `a new result delivered after the steps did not run: HTTP ${obs.lastDelivery.status} ${obs.lastDelivery.body}`,
		});
	return found;
};

/** 9. Requests within the formula of their operation (run-*.ts, where each bound is computed). */
const boundedRequests: Check = (_c, obs) =>
	obs.executions
		.filter((e) => e.requestBound && !e.timedOut && e.requestBound.count > e.requestBound.limit)
		.map((e) => ({
			invariant: 9,
			where: at(e),
			detail: `${e.requestBound!.count} ${e.requestBound!.what} where the work allows ${e.requestBound!.limit} = ${e.requestBound!.formula}`,
		}));

/** 10. Get Many: every record that matched from start to end, each once; nothing that never matched. */
const getManyExact: Check = (c, obs) =>
	obs.executions
		.filter((e) => e.op === 'getMany' && !e.timedOut && e.listing && c.kind === 'getMany')
		.flatMap((e) => {
			if (c.kind !== 'getMany') return [];
			const { start, end, changed } = e.listing!;
			const failed = e.error ?? e.items.find((item) => item.error !== undefined);
			if (failed) {
				// A loud error is allowed, but not a cap applied to pages reported instead of pages read.
				const cap = /more than (\d+) pages/.exec(JSON.stringify(failed));
				const held = Math.max(start.length, end.length) + changed.length;
				return cap && held < 25 * Number(cap[1])
					? [
							{
								invariant: 10,
								where: at(e),
								detail: `Get Many failed with "more than ${cap[1]} pages" where ${held} records match: the cap applied to the pages \`meta\` reported, not to pages read`,
							},
						]
					: [];
			}
			const counts = new Map<number, number>();
			for (const item of e.items)
				for (const id of scanIdsOf(item)) counts.set(id, (counts.get(id) ?? 0) + 1);
			const found: Violation[] = [];
			const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
			if (twice.length)
				found.push({
					invariant: 10,
					where: at(e),
					detail: `scans ${twice.join(', ')} came out more than once`,
				});
			const matchedAtAll = new Set([...start, ...end, ...changed]);
			const strangers = [...counts.keys()].filter((id) => !matchedAtAll.has(id));
			if (strangers.length)
				found.push({
					invariant: 10,
					where: at(e),
					detail: `scans ${strangers.join(', ')} never matched the filter`,
				});
			if (c.settings.returnAll) {
				const missing = start.filter(
					(id) => end.includes(id) && !changed.includes(id) && !counts.has(id),
				);
				if (missing.length)
					found.push({
						invariant: 10,
						where: at(e),
						detail: `${missing.length} scan(s) that matched from start to end are missing (${missing.slice(0, 10).join(', ')}); ${counts.size} output`,
					});
			} else if (counts.size > c.settings.limit)
				found.push({
					invariant: 10,
					where: at(e),
					detail: `${counts.size} scans output over the Limit ${c.settings.limit}`,
				});
			return found;
		});

const CHECKS: Check[] = [
	keyStaysHome,
	paidScansNamed,
	ownDocument,
	pairedItems,
	ends,
	finalScansCarryData,
	noUploadAfterStop,
	triggersOnce,
	boundedRequests,
	getManyExact,
	(_c, obs) => toolAnswersSafe(obs.executions), // 11 (run-tool.ts)
];

export function check(c: Case, obs: Observation, origins: Origins): Violation[] {
	return CHECKS.flatMap((one) => one(c, obs, origins));
}

/** The class of defect a violation shows (issue 31 §4), for the baseline table. */
export function classOf(v: Violation): string {
	switch (v.invariant) {
		case 1:
			return 'the key off-origin';
		case 2:
			return 'a paid scan unnamed';
		case 3:
			return "another document's scan";
		case 4:
			return 'items not paired one to one';
		case 5:
			return 'the hang';
		case 6:
			return 'data missing';
		case 7:
			return 'the storm after a 429';
		case 9:
			return 'the whole-account read';
		case 10:
			return 'Get Many missing or repeating records';
		case 11:
			return 'a tool answer unbounded or holding a secret';
		default:
			if (/did not run: HTTP 401|401/.test(v.detail)) return 'the registration rolled back';
			if (/duplicate|and ran \d+ time/.test(v.detail)) return 'a timely delivery that did not run';
			if (/deleted webhook's secret/.test(v.detail)) return 'a retired secret accepted';
			if (/wrote the workflow's static data/.test(v.detail))
				return 'a delivery that writes static data';
			if (/forged requests/.test(v.detail)) return 'a forged request that reaches the service';
			if (/webhooks at the trigger's URL/.test(v.detail)) return 'a second webhook per trigger';
			if (/late delivery was refused|stale_delivery/.test(v.detail))
				return 'a late delivery refused';
			if (/beyond the replay tolerance started/.test(v.detail)) return 'a replay run';
			if (/ran \d+ times from/.test(v.detail)) return 'a delivery run twice';
			if (v.where === 'poll trigger') return 'the poll trigger losing or repeating scans';
			return 'a delivered result lost';
	}
}
