/**
 * Scans that become visible in the listing after newer ones (issue 25 §2): uploads run in
 * parallel, so scan 4 can be listed after scan 5. A scan that appears below the horizon after it
 * moved is still emitted, once, within the window (unseen.ts); one found unfinished below the
 * window is followed with a warning. The sandbox hides scans from listings until revealed.
 */
import { PollContext } from 'n8n-core';

import { type Sandbox } from '../../sandbox/server';
import { LATE_MS } from '../../nodes/shared/transport/listingPages';
import { emittedIds, makePoll, seed, usePollSandbox } from './helpers';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));

const listingReads = () =>
	sandbox.control.requests().filter((r) => r.method === 'GET' && r.path === '/scans').length;

function logWarnings(): jest.Mock {
	const warn = jest.fn();
	jest
		.spyOn(PollContext.prototype, 'logger', 'get')
		.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
	return warn;
}

test('scan 4 listed after scan 5: 5 comes out first, 4 at the poll that sees it, each once', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const [four, five] = seed(sandbox, 2);
	sandbox.control.hideScans([four]);
	expect(emittedIds(await trigger.poll())).toEqual([five]);
	expect(trigger.nodeStaticData.unseen).toEqual([
		expect.objectContaining({ from: four, to: four, checks: 0 }),
	]);

	sandbox.control.revealScans([four]);
	expect(emittedIds(await trigger.poll())).toEqual([four]);
	expect(trigger.nodeStaticData.unseen).toEqual([]);
	expect(await trigger.poll()).toBeNull();
});

test('an unfinished scan listed late is followed and comes out when it finishes', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const [late] = seed(sandbox, 1, 'processing');
	const [newer] = seed(sandbox, 1);
	sandbox.control.hideScans([late]);
	expect(emittedIds(await trigger.poll())).toEqual([newer]);
	sandbox.control.revealScans([late]);
	expect(await trigger.poll()).toBeNull();
	expect(trigger.nodeStaticData.pending).toEqual([late]);
	sandbox.control.setScanStatus(late, 'completed');
	expect(emittedIds(await trigger.poll())).toEqual([late]);
	expect(await trigger.poll()).toBeNull();
});

test('a scan that appears while the poll reads the listing: once, at this poll or the next', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const ids = seed(sandbox, 40);
	const hidden = ids[20];
	sandbox.control.hideScans([hidden]);
	sandbox.control.duringListing(1, { reveal: [hidden] });
	const out = [...emittedIds(await trigger.poll()), ...emittedIds(await trigger.poll())];
	expect(out.sort((a, b) => a - b)).toEqual(ids);
});

test('with IDs that grow by one and nothing missing, the window costs no request', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	seed(sandbox, 3);
	await trigger.poll();
	sandbox.control.clearRequests();
	expect(await trigger.poll()).toBeNull();
	expect(listingReads()).toBe(1);
	expect(trigger.nodeStaticData.unseen).toEqual([]);
});

test('an unseen scan is looked for past one page of newer scans', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const [hidden, newer] = seed(sandbox, 2);
	sandbox.control.hideScans([hidden]);
	expect(emittedIds(await trigger.poll())).toEqual([newer]);
	const burst = seed(sandbox, 30);
	sandbox.control.revealScans([hidden]);
	const out = emittedIds(await trigger.poll());
	expect(out.sort((a, b) => a - b)).toEqual([hidden, ...burst]);
});

describe('the window', () => {
	/** The stored unseen ranges, aged as if first missed longer ago than the window. */
	function age(trigger: Awaited<ReturnType<typeof makePoll>>) {
		for (const range of trigger.nodeStaticData.unseen as Array<{ since: number }>)
			range.since -= LATE_MS + 1;
	}

	test('an unseen ID is dropped after two more polls listed past it and the time went by', async () => {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const [hidden] = seed(sandbox, 2);
		sandbox.control.hideScans([hidden]);
		await trigger.poll();
		await trigger.poll();
		expect(trigger.nodeStaticData.unseen).toHaveLength(1);
		age(trigger);
		// Two checks so far, and older than the window: it goes at the next poll.
		await trigger.poll();
		expect(trigger.nodeStaticData.unseen).toEqual([]);
	});

	test('found unfinished below the window: followed from then on, with a warning naming it', async () => {
		const warn = logWarnings();
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const [hidden] = seed(sandbox, 1, 'processing');
		seed(sandbox, 1);
		sandbox.control.hideScans([hidden]);
		await trigger.poll();
		await trigger.poll();
		age(trigger);
		await trigger.poll();
		expect(trigger.nodeStaticData.unseen).toEqual([]);

		sandbox.control.revealScans([hidden]);
		expect(await trigger.poll()).toBeNull();
		expect(trigger.nodeStaticData.pending).toEqual([hidden]);
		expect(warn).toHaveBeenCalledWith(
			expect.stringMatching(
				new RegExp(
					`scan ${hidden} \\(status processing\\) appeared in the listing below the window`,
				),
			),
		);
		sandbox.control.setScanStatus(hidden, 'completed');
		expect(emittedIds(await trigger.poll())).toEqual([hidden]);
	});
});
