/**
 * The poll trigger on a busy account: a listing that moves during a poll, the first
 * activation with many scans still processing, and one scan whose own GET keeps failing.
 */
import { PollContext } from 'n8n-core';

import { type Sandbox } from '../../sandbox/server';
import { STUCK_MAX_FAILURES } from '../../nodes/DocumentScanningPollTrigger/state';
import { emittedIds, makePoll, seed, usePollSandbox, waitFinished } from './helpers';
import { uploadScan } from '../support/sandbox-api';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));

test("25 scans created during a poll (page 2 starts with page 1's first scan): all 40 finished scans come out, each once", async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const finished = seed(sandbox, 40);
	sandbox.control.createScansDuringListing(1, { count: 25 });
	const first = emittedIds(await trigger.poll());
	const second = emittedIds(await trigger.poll());
	const all = [...first, ...second];
	expect(new Set(all).size).toBe(all.length);
	expect(first.sort((a, b) => a - b)).toEqual(finished);
	expect(second).toHaveLength(25);
	expect(await trigger.poll()).toBeNull();
});

test('the horizon never passes a scan the poll did not see', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const finished = seed(sandbox, 60);
	for (const after of [1, 2, 3]) sandbox.control.createScansDuringListing(after, { count: 25 });
	const out = [
		...emittedIds(await trigger.poll()),
		...emittedIds(await trigger.poll()),
		...emittedIds(await trigger.poll()),
	];
	expect(new Set(out).size).toBe(out.length);
	expect(out.filter((id) => finished.includes(id)).sort((a, b) => a - b)).toEqual(finished);
	expect(out).toHaveLength(60 + 75);
});

test('first activation with 30 scans still processing: each comes out when it finishes, no history', async () => {
	seed(sandbox, 10);
	sandbox.control.hold(true);
	const running: number[] = [];
	for (let i = 0; i < 30; i++) running.push(await uploadScan(sandbox, `running-${i}.pdf`));
	const trigger = await makePoll(sandbox);
	expect(await trigger.activate()).toBeNull();
	expect([...(trigger.nodeStaticData.pending as number[])].sort((a, b) => a - b)).toEqual(running);

	sandbox.control.hold(false);
	for (const id of running) await waitFinished(sandbox, id);
	const out: number[] = [];
	for (let i = 0; i < 4; i++) out.push(...emittedIds(await trigger.poll()));
	expect(out.sort((a, b) => a - b)).toEqual(running);
	expect(await trigger.poll()).toBeNull();
});

test('first activation looks back 24 hours on the service clock, not through the whole history', async () => {
	sandbox.control.hold(true);
	const old = await uploadScan(sandbox, 'old-stuck.pdf');
	seed(sandbox, 30);
	sandbox.control.advanceClock(25 * 60 * 60 * 1000);
	const recent = seed(sandbox, 30);
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	expect(trigger.nodeStaticData.pending).toEqual([]);
	expect(trigger.nodeStaticData.horizon).toBe(Math.max(...recent));
	expect(old).toBeLessThan(Math.min(...recent));
});

describe('one stuck scan', () => {
	async function stuckSetup() {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		sandbox.control.hold(true);
		const slow = await uploadScan(sandbox, 'slow.pdf');
		expect(await trigger.poll()).toBeNull();
		// Push it below page 1, so it is fetched on its own; its GET always fails.
		expect(emittedIds(await trigger.poll())).toEqual([]);
		const burst = seed(sandbox, 30);
		expect(emittedIds(await trigger.poll()).sort((a, b) => a - b)).toEqual(burst);
		sandbox.control.addFault({
			kind: 'status500',
			method: 'GET',
			path: `^/scans/${slow}$`,
			times: 1000,
		});
		return { trigger, slow };
	}

	test('stays with that scan: new scans still come out, and the scan is retried with back-off', async () => {
		const { trigger, slow } = await stuckSetup();
		const fresh = seed(sandbox, 2);
		expect(emittedIds(await trigger.poll())).toEqual(fresh);
		const stuck = (
			trigger.nodeStaticData.stuck as Record<string, { failures: number; nextAt: number }>
		)[String(slow)];
		expect(stuck.failures).toBe(1);
		expect(stuck.nextAt).toBeGreaterThan(Date.now() + 30_000);

		// Not due yet: the next poll does not ask for it.
		sandbox.control.clearRequests();
		const more = seed(sandbox, 1);
		expect(emittedIds(await trigger.poll())).toEqual(more);
		expect(sandbox.control.requests().some((r) => r.path === `/scans/${slow}`)).toBe(false);

		// Once it works again, it comes out once.
		sandbox.control.clearFaults();
		stuck.nextAt = 0;
		(trigger.nodeStaticData.stuck as Record<string, { nextAt: number }>)[String(slow)].nextAt = 0;
		sandbox.control.hold(false);
		await waitFinished(sandbox, slow);
		expect(emittedIds(await trigger.poll())).toEqual([slow]);
		expect(trigger.nodeStaticData.stuck).toEqual({});
	});

	test('a 429 on its request concerns the account: the poll fails and the state stays as it was', async () => {
		const { trigger, slow } = await stuckSetup();
		sandbox.control.clearFaults();
		sandbox.control.addFault({
			kind: 'status',
			status: 429,
			method: 'GET',
			path: `^/scans/${slow}$`,
			times: 1000,
		});
		const before = JSON.stringify(trigger.nodeStaticData);
		seed(sandbox, 1);
		await expect(trigger.poll()).rejects.toThrow();
		expect(JSON.stringify(trigger.nodeStaticData)).toBe(before);
	});

	test(`is given up after ${STUCK_MAX_FAILURES} failures in a row, with a log line`, async () => {
		const warn = jest.fn();
		jest
			.spyOn(PollContext.prototype, 'logger', 'get')
			.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
		const { trigger, slow } = await stuckSetup();
		for (let i = 0; i < STUCK_MAX_FAILURES; i++) {
			const stuck = trigger.nodeStaticData.stuck as Record<string, { nextAt: number }>;
			if (stuck[String(slow)]) stuck[String(slow)].nextAt = 0;
			await trigger.poll();
		}
		expect(trigger.nodeStaticData.pending).toEqual([]);
		expect(trigger.nodeStaticData.stuck).toEqual({});
		expect(warn).toHaveBeenCalledWith(
			expect.stringMatching(
				new RegExp(`gave up following scan ${slow} after ${STUCK_MAX_FAILURES} failed requests`),
			),
		);
	});
});
