/**
 * Unit tests of the poller's schedule (waiting/schedule.ts): the regular rule (First Poll
 * Interval, 15 % of the time waited, Max Poll Interval) brought forward to a scan's expected
 * finish once a scan of its template was seen final, never later than the regular rule.
 */
import { EXPECTED_GAP_MS, Schedule } from '../../nodes/DocumentScanning/waiting/schedule';
import { nextGapMs, waitSettings } from '../../nodes/DocumentScanning/waiting/pollSettings';

const settings = waitSettings({}); // 0.5 s first, 10 s max, 300 s timeout

test('without a finished scan of the template: the regular rule', () => {
	const schedule = new Schedule();
	for (const waited of [0, 400, 3000, 10_000, 200_000]) {
		expect(schedule.nextRead(settings, { joinedAt: 0, templateId: 1 }, waited)).toBe(
			waited + nextGapMs(settings, waited),
		);
	}
	schedule.finished(2, 3000);
	expect(schedule.nextRead(settings, { joinedAt: 0, templateId: 1 }, 1000)).toBe(1500);
});

test('the expected time is the shortest seen for the template', () => {
	const schedule = new Schedule();
	schedule.finished(1, 3400);
	schedule.finished(1, 3100);
	schedule.finished(1, 3900);
	schedule.finished(1, -5); // a clock step back teaches nothing
	expect(schedule.expectedMs(1)).toBe(3100);
	expect(schedule.expectedMs(undefined)).toBeUndefined();
	schedule.finished(undefined, 800);
	expect(schedule.expectedMs(undefined)).toBe(800);
});

test('a scan is read at its expected finish when that comes before the regular read', () => {
	const schedule = new Schedule();
	schedule.finished(1, 3000);
	// Joined at 1000, last read at 3700: regular next read 4200, expected finish 4000.
	expect(schedule.nextRead(settings, { joinedAt: 1000, templateId: 1 }, 3700)).toBe(4000);
	// At least EXPECTED_GAP_MS after the last read.
	expect(schedule.nextRead(settings, { joinedAt: 1000, templateId: 1 }, 3900)).toBe(
		3900 + EXPECTED_GAP_MS,
	);
	// Never later than the regular rule: an expected finish far ahead changes nothing.
	expect(schedule.nextRead(settings, { joinedAt: 1000, templateId: 1 }, 1500)).toBe(2000);
});

test('a scan late for its expected finish is read again soon, then by the regular rule', () => {
	const schedule = new Schedule();
	schedule.finished(1, 3000);
	// Expected at 3000; read at 3100 and not final: once more after EXPECTED_GAP_MS.
	expect(schedule.nextRead(settings, { joinedAt: 0, templateId: 1 }, 3100)).toBe(
		3100 + EXPECTED_GAP_MS,
	);
	// One First Poll Interval past the expected finish: the regular rule alone.
	expect(schedule.nextRead(settings, { joinedAt: 0, templateId: 1 }, 3500)).toBe(
		3500 + nextGapMs(settings, 3500),
	);
	expect(EXPECTED_GAP_MS).toBe(200);
});
