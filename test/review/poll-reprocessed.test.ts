/**
 * Review of issue 33 §2 from the Poll Trigger's side: a finished scan the service processes again
 * (the spec's "any processing outcome" → completed; the sandbox's `reprocessScan`) has a new
 * result. The webhook trigger runs it (a new deliveryKey, test/trigger). The Poll Trigger emits
 * each scan once, at its first final status, and never looks at it again: the corrected result
 * never starts the workflow, and nothing says so. The README sends users with a late delivery to
 * the Poll Trigger, which cannot give them a result of this kind.
 */
import type { IDataObject } from 'n8n-workflow';

import { type Sandbox } from '../../sandbox/server';
import { emittedIds, makePoll, seed, usePollSandbox } from '../poll-trigger/helpers';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));

test('what it does today: the first result comes out, the result of processing it again does not', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const [id] = seed(sandbox, 1, 'validation_failed');
	const first = await trigger.poll();
	expect(emittedIds(first)).toEqual([id]);
	expect((first![0].json.data as IDataObject).status).toBe('validation_failed');

	sandbox.control.reprocessScan(id, 'completed');
	expect(sandbox.control.getScan(id)?.status).toBe('completed');
	for (let poll = 0; poll < 3; poll++) expect(await trigger.poll()).toBeNull();
});

// Not fixable at a bounded cost: the listing is newest first by ID, and a scan processed again
// keeps its ID. The reference now says so ("What happens when"); proposed for the README too (it
// is at its line budget): the Poll Trigger emits a scan's first final result only, and a result of
// a scan processed again reaches a workflow through the webhook trigger (or Scan → Get).
test.failing('a scan processed again to another result starts the workflow again', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const [id] = seed(sandbox, 1, 'validation_failed');
	await trigger.poll();
	sandbox.control.reprocessScan(id, 'completed');
	const emitted: IDataObject[] = [];
	for (let poll = 0; poll < 3; poll++)
		for (const item of (await trigger.poll()) ?? []) emitted.push(item.json.data as IDataObject);
	expect(emitted).toEqual([expect.objectContaining({ scan_id: id, status: 'completed' })]);
});
