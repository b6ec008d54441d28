/**
 * Review of issue 33 §5 from outside: the poll trigger reads a brief listed finished scan by ID
 * before it emits it, at most MAX_WHOLE_READS a poll, lowest IDs first. A read by ID that fails
 * is not counted anywhere: the scan is read again at every poll, with no back-off, no bound and
 * no word in n8n's log (the reads of followed scans that are not listed have all three,
 * state.ts `stuck`). A scan whose GET /scans/{id} keeps failing (the spec's 500, "retry later")
 * is therefore read at every poll for ever, and MAX_WHOLE_READS of them on the pages a poll
 * reads keep every newer finished scan from being emitted: the trigger goes quiet without a
 * word. Now such a read strikes as a followed scan's does: back-off, then given up with a warning.
 */
import { PollContext } from 'n8n-core';

import { MAX_WHOLE_READS } from '../../nodes/DocumentScanningPollTrigger/listing';
import { STUCK_MAX_FAILURES } from '../../nodes/DocumentScanningPollTrigger/state';
import { type Sandbox } from '../../sandbox/server';
import { emittedIds, makePoll, requestLines, seed, usePollSandbox } from '../poll-trigger/helpers';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));
beforeEach(() => sandbox.control.setOptions({ listedScans: 'brief' }));

/** GET /scans/{id} of these scans answers 500 from now on. */
function breakReads(ids: number[]): void {
	sandbox.control.addFault({
		method: 'GET',
		path: `^/scans/(${ids.join('|')})$`,
		kind: 'status500',
		times: 100_000,
	});
}

/** More than MAX_WHOLE_READS and the single fetches a poll makes: they span two listed pages. */
const BROKEN = 40;

/** Every pause of the back-off over (as the followed-scan tests do it). */
function dueNow(state: Record<string, unknown>): void {
	for (const entry of Object.values((state.stuck ?? {}) as Record<string, { nextAt: number }>))
		entry.nextAt = 0;
}

test('a finished scan whose read by ID keeps failing is given up after a bound, with a warning naming it (was: read at every poll for ever, nothing logged)', async () => {
	const warn = jest.fn();
	jest
		.spyOn(PollContext.prototype, 'logger', 'get')
		.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const [broken] = seed(sandbox, 1);
	breakReads([broken]);
	sandbox.control.clearRequests();
	for (let poll = 0; poll < STUCK_MAX_FAILURES + 2; poll++) {
		dueNow(trigger.nodeStaticData);
		expect(await trigger.poll()).toBeNull();
	}
	const reads = requestLines(sandbox).filter((line) => line === `GET /scans/${broken}`);
	expect(reads).toHaveLength(STUCK_MAX_FAILURES);
	expect(trigger.nodeStaticData.pending).toEqual([]);
	expect(warn).toHaveBeenCalledWith(
		expect.stringMatching(
			new RegExp(`gave up following scan ${broken} after ${STUCK_MAX_FAILURES} failed requests`),
		),
	);
});

test('a failed read waits out its back-off: the next poll does not read it again', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const [broken] = seed(sandbox, 1);
	breakReads([broken]);
	sandbox.control.clearRequests();
	await trigger.poll();
	await trigger.poll();
	expect(requestLines(sandbox).filter((line) => line === `GET /scans/${broken}`)).toHaveLength(1);
	expect(trigger.nodeStaticData.pending).toEqual([broken]);
});

test(`${BROKEN} finished scans whose read by ID keeps failing (more than ${MAX_WHOLE_READS} on the pages a poll reads) do not keep a newer one from being emitted (was: never emitted)`, async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	breakReads(seed(sandbox, BROKEN));
	const [fine] = seed(sandbox, 1);
	const emitted: number[] = [];
	for (let poll = 0; poll < STUCK_MAX_FAILURES + 2; poll++) {
		dueNow(trigger.nodeStaticData); // the worst case: every failed read due again at once
		emitted.push(...emittedIds(await trigger.poll()));
	}
	expect(emitted).toEqual([fine]);
});
