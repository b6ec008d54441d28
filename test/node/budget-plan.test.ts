/** Property-based tests (fast-check, fixed seeds) of the upload budget's counting and planning (no requests). */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { HOUR_MS, inWindow, planBudget } from '../../nodes/DocumentScanning/upload/budget';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const seed = (n: number) => ({ seed: n, numRuns: 100 });

/** Upload times inside the hour before NOW, whole seconds, oldest first. */
const windowTimes = fc
	.array(fc.integer({ min: 1, max: 3600 }), { maxLength: 260 })
	.map((ages) => ages.map((s) => NOW - s * 1000 + 1000).sort((a, b) => a - b));

describe('planBudget', () => {
	const limitsArb = fc.record({
		times: windowTimes,
		hourlyLimit: fc.integer({ min: 1, max: 250 }),
		credits: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
		documents: fc.integer({ min: 0, max: 300 }),
	});

	test('exactly the first `fits` documents go; fits is what the tightest limit allows', () => {
		fc.assert(
			fc.property(limitsArb, ({ times, hourlyLimit, credits, documents }) => {
				const plan = planBudget({ times, hourlyLimit, credits, serverNow: NOW }, documents);
				const expected = Math.min(
					documents,
					Math.max(0, hourlyLimit - times.length),
					credits ?? Infinity,
				);
				expect(plan.fits).toBe(expected);
				for (let p = 0; p < documents; p++) expect(plan.holdOf(p) === undefined).toBe(p < expected);
			}),
			seed(16),
		);
	});

	test("a held document's retry time is the first moment its hourly slot is free, and never earlier than the one before it", () => {
		fc.assert(
			fc.property(limitsArb, ({ times, hourlyLimit, documents }) => {
				const plan = planBudget(
					{ times, hourlyLimit, credits: undefined, serverNow: NOW },
					documents,
				);
				let previous = -Infinity;
				for (let p = plan.fits; p < documents; p++) {
					const hold = plan.holdOf(p)!;
					expect(hold.reason).toBe('hourlyLimit');
					const at = hold.retryAfter!;
					expect(at).toBeGreaterThanOrEqual(previous);
					expect(at).toBeGreaterThan(NOW);
					expect(at).toBeLessThanOrEqual(NOW + HOUR_MS);
					previous = at;
					const j = p - plan.slotsLeft;
					if (j >= times.length - Math.max(0, times.length - hourlyLimit)) continue; // freed by this batch's own uploads
					// In the window at time t: the older uploads not yet an hour old, this batch's uploads, the j held before.
					const load = (t: number) =>
						times.filter((u) => u + HOUR_MS > t).length + plan.slotsLeft + j;
					expect(load(at)).toBeLessThan(hourlyLimit);
					expect(load(at - 1)).toBeGreaterThanOrEqual(hourlyLimit);
				}
			}),
			seed(17),
		);
	});

	test('credit shortage is never given a retry time; waiting does not bring credit back', () => {
		fc.assert(
			fc.property(limitsArb, ({ times, hourlyLimit, credits, documents }) => {
				const plan = planBudget({ times, hourlyLimit, credits, serverNow: NOW }, documents);
				for (let p = plan.fits; p < documents; p++) {
					const hold = plan.holdOf(p)!;
					if (credits !== undefined && p >= credits)
						expect(hold).toEqual({ reason: 'credit', retryAfter: undefined });
					else expect(hold.reason).toBe('hourlyLimit');
				}
			}),
			seed(18),
		);
	});
});

describe('inWindow: one page of the scans listing', () => {
	const createdAt = fc.oneof(
		fc.integer({ min: -2 * 3600, max: 600 }).map((s) => new Date(NOW + s * 1000).toISOString()),
		fc
			.integer({ min: -2 * 3600, max: 0 })
			.map((s) => new Date(NOW + s * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00')),
		fc.constantFrom(undefined, null, '', 'yesterday', 42, '2026-13-45T99:00:00Z'),
	);
	const scans = fc.array(fc.record({ id: fc.nat(), created_at: createdAt }), { maxLength: 30 });

	test('counts every scan of the last hour, an unreadable or future time as now, and says when all are older', () => {
		fc.assert(
			fc.property(scans, (page) => {
				const { times, allOlder } = inWindow(page as IDataObject[], NOW);
				const ages = page.map((scan) => {
					const t = typeof scan.created_at === 'string' ? Date.parse(scan.created_at) : NaN;
					return Number.isFinite(t) ? t : NOW;
				});
				const inside = ages.filter((t) => t > NOW - HOUR_MS);
				expect(times).toHaveLength(inside.length);
				expect(times.every((t) => t <= NOW && t > NOW - HOUR_MS)).toBe(true);
				expect(allOlder).toBe(page.length > 0 && inside.length === 0);
			}),
			seed(19),
		);
	});
});
