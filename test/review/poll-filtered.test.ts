/**
 * Review of issue 33 §5 from outside: with brief listed records, a finished scan the trigger's
 * filters leave out (another event, another template) is never read by ID at the poll that lists
 * it ("filtered-out scans are not read by ID", test/poll-trigger/whole-scans.test.ts). But the
 * commit keeps every brief finished scan as followed, filtered out or not, so the next polls
 * read each of them by ID all the same (and read further pages to find them): requests grow
 * with the scans the trigger does not want, not with the work.
 */
import { type Sandbox } from '../../sandbox/server';
import { emittedIds, makePoll, requestLines, seed, usePollSandbox } from '../poll-trigger/helpers';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));
beforeEach(() => sandbox.control.setOptions({ listedScans: 'brief' }));

test('scans of another event are not followed and never read by ID, at any later poll', async () => {
	const trigger = await makePoll(sandbox, { events: ['scan.failed'] });
	await trigger.activate();
	const others = seed(sandbox, 3, 'completed');
	const [failed] = seed(sandbox, 1, 'failed');
	sandbox.control.clearRequests();
	expect(emittedIds(await trigger.poll())).toEqual([failed]);
	expect(trigger.nodeStaticData.pending).toEqual([]);
	// Newer scans of the other event push those three off page 1.
	others.push(...seed(sandbox, 25, 'completed'));
	for (let poll = 0; poll < 3; poll++) expect(await trigger.poll()).toBeNull();
	const reads = requestLines(sandbox).filter((line) => /^GET \/scans\/\d+$/.test(line));
	expect(reads).toEqual([`GET /scans/${failed}`]);
	expect(trigger.nodeStaticData.pending).toEqual([]);
});

test('a trigger for one template in a busy account: other templates’ finished scans do not crowd out a followed scan of its own (was: more than 1,000 of them dropped it, and it never started the workflow)', async () => {
	const trigger = await makePoll(sandbox, {
		events: ['scan.completed'],
		options: { templateIds: ['3'] },
	});
	await trigger.activate();
	const [mine] = seed(sandbox, 1, 'processing', 3);
	expect(await trigger.poll()).toBeNull();
	expect(trigger.nodeStaticData.pending).toEqual([mine]);
	for (let round = 0; round < 6; round++) {
		seed(sandbox, 200, 'completed', 1);
		expect(await trigger.poll()).toBeNull();
	}
	sandbox.control.setScanStatus(mine, 'completed');
	const emitted: number[] = [];
	for (let poll = 0; poll < 3; poll++) emitted.push(...emittedIds(await trigger.poll()));
	expect(emitted).toEqual([mine]);
});
