/**
 * Followed scans (issue 25 §5 and §6): every followed scan that finished comes out at the next
 * poll, read from the listing pages rather than one GET each; a followed scan whose status is
 * one the API does not list is given up after a bound, with a warning naming the scan and the
 * status.
 */
import { PollContext } from 'n8n-core';

import { type Sandbox } from '../../sandbox/server';
import { STUCK_MAX_FAILURES } from '../../nodes/DocumentScanningPollTrigger/state';
import { FOLLOW_MAX_PAGES } from '../../nodes/DocumentScanningPollTrigger/follow';
import { MAX_SINGLE_FETCHES } from '../../nodes/DocumentScanningPollTrigger/listing';
import { emittedIds, makePoll, requestLines, seed, usePollSandbox } from './helpers';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));

const finish = (ids: number[]) =>
	ids.forEach((id) => sandbox.control.setScanStatus(id, 'completed'));

for (const [count, pages] of [
	[60, 3],
	[200, 8],
] as const) {
	test(`${count} scans seen unfinished, all finished before the next poll: all ${count} come out at that poll, in ${pages} requests`, async () => {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const followed = seed(sandbox, count, 'processing');
		expect(await trigger.poll()).toBeNull();
		expect(trigger.nodeStaticData.pending).toHaveLength(count);
		finish(followed);
		sandbox.control.clearRequests();
		const out = emittedIds(await trigger.poll());
		expect(out.sort((a, b) => a - b)).toEqual(followed);
		expect(requestLines(sandbox)).toHaveLength(pages);
		expect(requestLines(sandbox).every((line) => line.startsWith('GET /scans?page='))).toBe(true);
		expect(await trigger.poll()).toBeNull();
	});
}

test('followed scans under a page of newer scans: still all out at the next poll', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const followed = seed(sandbox, 60, 'processing');
	await trigger.poll();
	const newer = seed(sandbox, 40);
	finish(followed);
	const out = emittedIds(await trigger.poll());
	expect(out.sort((a, b) => a - b)).toEqual([...followed, ...newer]);
});

test('one scan stuck deep in the listing costs one GET, not the pages down to it', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const [stuck] = seed(sandbox, 1, 'processing');
	await trigger.poll();
	seed(sandbox, 200);
	await trigger.poll();
	sandbox.control.clearRequests();
	const fresh = seed(sandbox, 2);
	expect(emittedIds(await trigger.poll())).toEqual(fresh);
	expect(requestLines(sandbox)).toEqual(['GET /scans?page=1', `GET /scans/${stuck}`]);
});

test(`the pages read past the horizon are bounded (${FOLLOW_MAX_PAGES}); the rest by single GETs (${MAX_SINGLE_FETCHES} a poll)`, async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	// Followed scans one in 26: every page past the horizon holds one.
	const followed: number[] = [];
	for (let i = 0; i < FOLLOW_MAX_PAGES + 20; i++) {
		followed.push(...seed(sandbox, 1, 'processing'));
		seed(sandbox, 25);
	}
	await trigger.poll();
	sandbox.control.clearRequests();
	finish(followed);
	const out = emittedIds(await trigger.poll());
	const lines = requestLines(sandbox);
	expect(lines.filter((line) => line.startsWith('GET /scans?page=')).length).toBe(
		1 + FOLLOW_MAX_PAGES,
	);
	expect(lines.filter((line) => /^GET \/scans\/\d+$/.test(line)).length).toBe(MAX_SINGLE_FETCHES);
	// Newest first, blocks of 25 finished scans and 1 followed one: the 41 pages read hold the
	// followed scans at positions 25, 51, … below 1,025 (39 of them); 10 more by single GETs.
	const onPages = Math.floor((25 * (1 + FOLLOW_MAX_PAGES) - 26) / 26) + 1;
	expect(out).toHaveLength(onPages + MAX_SINGLE_FETCHES);
	// The rest come out at later polls, each once.
	const all = [...out];
	for (let i = 0; i < 5 && all.length < followed.length; i++)
		all.push(...emittedIds(await trigger.poll()));
	expect(all.sort((a, b) => a - b)).toEqual(followed);
});

describe('a status the API does not list', () => {
	test(`"cancelled" is followed for ${STUCK_MAX_FAILURES} looks with back-off, then given up with a warning naming the scan and the status`, async () => {
		const warn = jest.fn();
		jest
			.spyOn(PollContext.prototype, 'logger', 'get')
			.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const [odd] = seed(sandbox, 1, 'processing');
		await trigger.poll();
		sandbox.control.setScanStatus(odd, 'cancelled');

		await trigger.poll();
		const stuck = () =>
			(trigger.nodeStaticData.stuck as Record<string, { failures: number; nextAt: number }>)[
				String(odd)
			];
		expect(stuck()).toMatchObject({ failures: 1, status: 'cancelled' });
		// Said at once, not only when given up hours later.
		expect(warn).toHaveBeenCalledWith(
			expect.stringMatching(
				new RegExp(`scan ${odd} shows status "cancelled", which is not one the API lists`),
			),
		);
		// Not due yet: the next poll does not count it again.
		await trigger.poll();
		expect(stuck().failures).toBe(1);
		for (let i = 1; i < STUCK_MAX_FAILURES; i++) {
			stuck().nextAt = 0;
			await trigger.poll();
		}
		expect(trigger.nodeStaticData.pending).toEqual([]);
		expect(trigger.nodeStaticData.stuck).toEqual({});
		expect(warn).toHaveBeenCalledWith(
			expect.stringMatching(
				new RegExp(
					`gave up following scan ${odd}: its status stayed "cancelled", which is not one the API lists, for ${STUCK_MAX_FAILURES} looks`,
				),
			),
		);
	});

	test('a scan that leaves the unlisted status before the bound is followed as usual', async () => {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const [odd] = seed(sandbox, 1, 'processing');
		await trigger.poll();
		sandbox.control.setScanStatus(odd, 'on_hold');
		await trigger.poll();
		expect(Object.keys(trigger.nodeStaticData.stuck as object)).toEqual([String(odd)]);
		sandbox.control.setScanStatus(odd, 'completed');
		expect(emittedIds(await trigger.poll())).toEqual([odd]);
		expect(trigger.nodeStaticData.stuck).toEqual({});
	});
});
