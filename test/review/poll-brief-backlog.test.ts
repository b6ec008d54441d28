/**
 * Review of the poll trigger's reads of brief finished records (at most 25 a poll,
 * listing.ts MAX_WHOLE_READS) from outside, with its bound on followed scans (MAX_PENDING,
 * 1,000): after a pause in which 1,030 scans finished (n8n down for some hours on a busy
 * account), under brief listed records the first poll reads 25 by ID and keeps the 1,005 others
 * as followed scans; beyond 1,000 the oldest are dropped, logged as "stopped following 5
 * unfinished scans" although they are finished, and they never start the workflow.
 */
import { type Sandbox } from '../../sandbox/server';
import { emittedIds, makePoll, usePollSandbox } from '../poll-trigger/helpers';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));

test('brief records, 1,030 scans finished between two polls: each starts the workflow once', async () => {
	sandbox.control.setOptions({ listedScans: 'brief' });
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const ids = sandbox.control.seedScans({ count: 1_030, status: 'completed' });
	const emitted: number[] = [];
	for (let poll = 0; poll < 60; poll++) {
		const items = await trigger.poll();
		if (
			items === null &&
			trigger.nodeStaticData.pending instanceof Array &&
			(trigger.nodeStaticData.pending as number[]).length === 0
		)
			break;
		emitted.push(...emittedIds(items));
	}
	expect(new Set(emitted).size).toBe(emitted.length);
	expect(ids.filter((id) => !emitted.includes(id))).toEqual([]);
}, 120_000);
