/**
 * Unit tests of the execution's pace (shared/pace.ts): a window of requests at the service that
 * starts at 5, grows by one per quick answer up to the cap, and halves once per window on a
 * 429, a 5xx, a lost answer or a slow one; then grows by one per window. Plus a property test:
 * whatever the answers, no more requests are at the service than the window allows, and the
 * window stays between 1 and the cap.
 */
import fc from 'fast-check';

import type { Answer, PaceSlot } from '../../nodes/shared/pace';
import { Pace, SLOW_MARGIN_MS, SLOW_RATIO, START_WINDOW } from '../../nodes/shared/pace';
import { runs } from '../support/property-runs';

const quick = (kind = 'GET /scans/{id}'): Answer => ({ kind, ms: 50, status: 200 });

async function take(pace: Pace, count: number): Promise<PaceSlot[]> {
	const slots: PaceSlot[] = [];
	for (let i = 0; i < count; i++) slots.push(await pace.acquire());
	return slots;
}

/** Whether `acquire` would wait now (a place is free within the same turn otherwise). */
async function waits(pace: Pace): Promise<boolean> {
	let got: PaceSlot | undefined;
	void pace.acquire().then((slot) => (got = slot));
	await new Promise((resolve) => setImmediate(resolve));
	got?.release();
	return got === undefined;
}

test('starts at 5 places (at most the cap), and the sixth request waits', async () => {
	expect(START_WINDOW).toBe(5);
	expect(new Pace(3).size).toBe(3);
	const pace = new Pace(32);
	expect(pace.size).toBe(5);
	const slots = await take(pace, 5);
	expect(await waits(pace)).toBe(true);
	slots[0].done(quick());
	expect(await waits(pace)).toBe(false);
});

test('a waiting request gets the place a finished one frees', async () => {
	const pace = new Pace(1);
	const [first] = await take(pace, 1);
	let second: PaceSlot | undefined;
	const waiting = pace.acquire().then((slot) => (second = slot));
	await new Promise((resolve) => setImmediate(resolve));
	expect(second).toBeUndefined();
	first.release();
	await waiting;
	expect(second).toBeDefined();
});

test('quick answers double the window every round of answers, up to the cap', async () => {
	const pace = new Pace(32);
	const sizes: number[] = [];
	for (let round = 0; round < 4; round++) {
		const slots = await take(pace, pace.size);
		for (const slot of slots) slot.done(quick());
		sizes.push(pace.size);
	}
	expect(sizes).toEqual([10, 20, 32, 32]);
	expect(pace.peak).toBe(32);
	expect(pace.halvings).toBe(0);
});

test.each([
	['a 429', { status: 429 }],
	['a 500', { status: 500 }],
	['a 503', { status: 503 }],
	['a lost answer', { lost: true }],
])('%s halves the window, once for all requests sent before it', async (_what, outcome) => {
	const pace = new Pace(32);
	for (const slot of await take(pace, 5)) slot.done(quick());
	expect(pace.size).toBe(10);
	const inFlight = await take(pace, 10);
	inFlight[0].done({ kind: 'GET /scans/{id}', ms: 50, ...outcome });
	expect(pace.size).toBe(5);
	// The other nine were sent before the halving: their trouble does not halve again.
	inFlight[1].done({ kind: 'GET /scans/{id}', ms: 50, status: 500 });
	inFlight[2].done({ kind: 'GET /scans/{id}', ms: 50, lost: true });
	expect(pace.size).toBe(5);
	expect(pace.halvings).toBe(1);
	for (const slot of inFlight.slice(3)) slot.release();
	// A request sent after the halving may halve again.
	const [later] = await take(pace, 1);
	later.done({ kind: 'GET /scans/{id}', ms: 50, status: 429 });
	expect(pace.size).toBe(2);
	expect(pace.halvings).toBe(2);
});

test('after a halving the window grows by one per window of quick answers', async () => {
	const pace = new Pace(32);
	for (const slot of await take(pace, 5)) slot.done(quick());
	const [bad] = await take(pace, 1);
	bad.done({ kind: 'POST /scans 12', ms: 50, status: 503 });
	expect(pace.size).toBe(5);
	for (const slot of await take(pace, 5)) slot.done(quick());
	expect(pace.size).toBe(6);
	for (const slot of await take(pace, 6)) slot.done(quick());
	expect(pace.size).toBe(7);
});

test('never below one place', async () => {
	const pace = new Pace(4, 1);
	const [slot] = await take(pace, 1);
	slot.done({ kind: 'x', ms: 1, status: 500 });
	expect(pace.size).toBe(1);
});

test(`an answer is slow beyond ${SLOW_RATIO} times the quickest of its kind and ${SLOW_MARGIN_MS} ms more`, async () => {
	const pace = new Pace(32);
	expect(pace.isSlow({ kind: 'GET /scans', ms: 60_000, status: 200 })).toBe(false); // nothing known yet
	const [first] = await take(pace, 1);
	first.done({ kind: 'GET /scans', ms: 100, status: 200 });
	expect(pace.isSlow({ kind: 'GET /scans', ms: 600, status: 200 })).toBe(false);
	expect(pace.isSlow({ kind: 'GET /scans', ms: 601, status: 200 })).toBe(true);
	expect(pace.isSlow({ kind: 'POST /scans 24', ms: 5000, status: 201 })).toBe(false); // other kind
	const [second] = await take(pace, 1);
	second.done({ kind: 'GET /scans/{id}', ms: 400, status: 200 });
	expect(pace.isSlow({ kind: 'GET /scans/{id}', ms: 1601, status: 200 })).toBe(true); // 4 x 400 ms
	expect(pace.isSlow({ kind: 'GET /scans/{id}', ms: 1600, status: 200 })).toBe(false);

	const size = pace.size;
	const [slow] = await take(pace, 1);
	slow.done({ kind: 'GET /scans', ms: 700, status: 200 });
	expect(pace.size).toBe(Math.floor(size / 2));
});

test('a refused request (4xx other than 429) is a quick answer; a released one says nothing', async () => {
	const pace = new Pace(32);
	const [a, b, c] = await take(pace, 3);
	a.done({ kind: 'POST /scans 12', ms: 40, status: 409 });
	b.done({ kind: 'GET /scans/{id}', ms: 40, status: 404 });
	c.release();
	expect(pace.size).toBe(7);
	expect(pace.halvings).toBe(0);
});

test('a slot ends once: a second done or release changes nothing', async () => {
	const pace = new Pace(32);
	const [slot] = await take(pace, 1);
	slot.done(quick());
	slot.done({ kind: 'x', ms: 1, status: 500 });
	slot.release();
	expect(pace.size).toBe(6);
	expect(pace.halvings).toBe(0);
});

describe('property: the window holds whatever the answers', () => {
	const answer = fc.record({
		kind: fc.constantFrom('GET /scans', 'GET /scans/{id}', 'POST /scans 12'),
		ms: fc.integer({ min: 0, max: 5000 }),
		status: fc.option(fc.constantFrom(200, 201, 404, 409, 422, 429, 500, 502, 503), {
			nil: undefined,
		}),
		lost: fc.boolean(),
	});
	test('requests at the service never exceed the window; the window stays in 1..cap', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 1, max: 64 }),
				fc.array(fc.tuple(answer, fc.boolean()), { minLength: 1, maxLength: 150 }),
				async (cap, answers) => {
					const pace = new Pace(cap);
					let atService = 0;
					let most = 0;
					const open: PaceSlot[] = [];
					const started: Array<Promise<void>> = [];
					for (const [outcome, endOneFirst] of answers) {
						if (endOneFirst && open.length > 0) {
							atService--;
							open.shift()?.done(outcome);
						}
						started.push(
							pace.acquire().then((slot) => {
								atService++;
								most = Math.max(most, atService);
								// Sent only while fewer than the window are at the service.
								expect(atService).toBeLessThanOrEqual(pace.size);
								open.push(slot);
							}),
						);
						await new Promise((resolve) => setImmediate(resolve));
						expect(pace.size).toBeGreaterThanOrEqual(1);
						expect(pace.size).toBeLessThanOrEqual(cap);
					}
					while (open.length > 0 || atService > 0) {
						atService--;
						open.shift()?.release();
						await new Promise((resolve) => setImmediate(resolve));
					}
					await Promise.all(started);
					expect(most).toBeLessThanOrEqual(cap);
				},
			),
			runs(2611, 200),
		);
	});
});
