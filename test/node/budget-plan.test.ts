/** Property-based tests (fast-check, fixed seeds) of the upload budget's counting and planning (no requests). */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { planBudget, slotFreeAt } from '../../nodes/DocumentScanning/upload/budget/plan';
import {
	HOUR_MS,
	inWindow,
	SECOND_ROUNDING_MS,
} from '../../nodes/DocumentScanning/upload/budget/window';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const seed = (n: number) => ({ seed: n, numRuns: 100 });

/** Upload times as `created_at` shows them: whole seconds inside the hour before NOW, oldest first. */
const windowTimes = fc
	.array(fc.integer({ min: 1, max: 3600 }), { maxLength: 260 })
	.map((ages) => ages.map((s) => NOW - s * 1000 + 1000).sort((a, b) => a - b));

/**
 * The uploads that may still be in the service's rolling hour at time `t`: an upload shown at
 * `u` was made at some moment of [u, u + 1 s), and leaves the hour an hour after that moment.
 */
const mayBeIn = (times: number[], t: number) =>
	times.filter((u) => u + SECOND_ROUNDING_MS + HOUR_MS > t).length;

describe('planBudget', () => {
	const limitsArb = fc.record({
		times: windowTimes,
		hourlyLimit: fc.integer({ min: 1, max: 200 }),
		credits: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
		documents: fc.integer({ min: 0, max: 300 }),
	});

	test('fits is what the tightest limit allows; the whole batch fits at a time only when it can fit in one hour', () => {
		fc.assert(
			fc.property(limitsArb, ({ times, hourlyLimit, credits, documents }) => {
				const plan = planBudget({ times, hourlyLimit, credits, serverNow: NOW }, documents);
				const expected = Math.min(
					documents,
					Math.max(0, hourlyLimit - times.length),
					credits ?? Infinity,
				);
				expect(plan.fits).toBe(expected);
				expect(plan.allFitAt === undefined).toBe(documents > hourlyLimit);
				if (plan.allFitAt !== undefined && documents > plan.slotsLeft) {
					// At that time every upload of the batch has a slot for certain, and one second earlier not.
					expect(mayBeIn(times, plan.allFitAt) + documents).toBeLessThanOrEqual(hourlyLimit);
					expect(mayBeIn(times, plan.allFitAt - 1) + documents).toBeGreaterThan(hourlyLimit);
				}
			}),
			seed(16),
		);
	});

	test("a held upload's slot is promised at the first moment it is free for certain, never earlier, in order", () => {
		fc.assert(
			fc.property(limitsArb, ({ times, hourlyLimit }) => {
				const slotsLeft = Math.max(0, hourlyLimit - times.length);
				let previous = -Infinity;
				for (let position = 0; position < hourlyLimit; position++) {
					const at = slotFreeAt(times, hourlyLimit, position);
					if (at === undefined) {
						// Past the window's uploads: it waits for uploads not made yet.
						expect(Math.max(0, times.length - hourlyLimit) + position).toBeGreaterThanOrEqual(
							times.length,
						);
						continue;
					}
					expect(at).toBeGreaterThanOrEqual(previous);
					expect(at).toBeLessThanOrEqual(NOW + HOUR_MS + SECOND_ROUNDING_MS);
					previous = at;
					// The free slots, the `position` uploads held before it and itself fit at `at` for
					// certain, and not a moment earlier.
					const uploads = slotsLeft + position + 1;
					expect(mayBeIn(times, at) + uploads).toBeLessThanOrEqual(hourlyLimit);
					expect(mayBeIn(times, at - 1) + uploads).toBeGreaterThan(hourlyLimit);
				}
			}),
			seed(17),
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

	test('counts every scan that may still be in the last hour, an unreadable or future time as now, and says when all are older', () => {
		fc.assert(
			fc.property(scans, (page) => {
				const { times, allOlder } = inWindow(page as IDataObject[], NOW);
				const shown = page.map((scan) => {
					const t = typeof scan.created_at === 'string' ? Date.parse(scan.created_at) : NaN;
					return Number.isFinite(t) ? t : NOW;
				});
				const inside = shown.filter((t) => t + SECOND_ROUNDING_MS > NOW - HOUR_MS);
				expect(times).toHaveLength(inside.length);
				expect(times.every((t) => t <= NOW && t + SECOND_ROUNDING_MS > NOW - HOUR_MS)).toBe(true);
				expect(allOlder).toBe(page.length > 0 && inside.length === 0);
			}),
			seed(19),
		);
	});
});
