/**
 * Document Scanning Poll Trigger across n8n restarts. n8n saves static data changed in poll()
 * only when the poll emits (and at activation and deactivation); a restart reloads what was
 * saved last. Losing the changes of polls that emitted nothing must cost no event and
 * duplicate none.
 */
import { type Sandbox, startSandbox } from '../../sandbox/server';
import { emittedIds, makePoll, seed, waitFinished } from './helpers';
import { uploadScan } from '../support/sandbox-api';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.control.reset());

test('restart after an emitting poll: the state is reloaded, nothing comes out twice', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const first = seed(sandbox, 3);
	expect(emittedIds(await trigger.poll())).toEqual(first);
	expect(trigger.savedNodeStaticData.emitted).toEqual(first);

	const restarted = await trigger.restart();
	expect(await restarted.activate('init')).toBeNull();
	const second = seed(sandbox, 2);
	expect(emittedIds(await restarted.poll())).toEqual(second);
	expect(await restarted.poll()).toBeNull();
});

test('changes of non-emitting polls are lost on restart: no event lost, none duplicated', async () => {
	// Only scan.completed of template 1: failed scans and other templates are filtered out.
	const parameters = { events: ['scan.completed'], options: { templateIds: ['1'] } };
	const trigger = await makePoll(sandbox, parameters);
	await trigger.activate();
	const emittedBefore = seed(sandbox, 2);
	expect(emittedIds(await trigger.poll())).toEqual(emittedBefore);
	const savedAfterEmit = JSON.stringify(trigger.saved.staticData);

	// Polls that emit nothing but change the state in memory:
	sandbox.control.hold(true);
	const waiting = await uploadScan(sandbox, 'waiting.pdf'); // new and unfinished -> pending
	const filteredFailed = seed(sandbox, 1, 'failed'); // finished but filtered -> settled
	const otherTemplate = seed(sandbox, 1, 'completed', 2); // finished but filtered -> settled
	expect(await trigger.poll()).toBeNull();
	expect(trigger.nodeStaticData.pending).toEqual([waiting]);
	expect(JSON.stringify(trigger.saved.staticData)).toBe(savedAfterEmit); // nothing saved

	// n8n restarts: the in-memory changes are gone.
	const restarted = await trigger.restart();
	expect(restarted.nodeStaticData.pending).toEqual([]);
	expect(await restarted.activate('init')).toBeNull(); // still unfinished: not emitted yet

	sandbox.control.hold(false);
	await waitFinished(sandbox, waiting);
	const items = await restarted.poll();
	expect(emittedIds(items)).toEqual([waiting]);
	expect(emittedIds(items)).not.toContain(filteredFailed[0]);
	expect(emittedIds(items)).not.toContain(otherTemplate[0]);
	expect(emittedIds(items).some((id) => emittedBefore.includes(id))).toBe(false);
	expect(await restarted.poll()).toBeNull();
});

test('a pending scan settled (filtered out) by a lost poll is settled again after the restart, not emitted', async () => {
	const trigger = await makePoll(sandbox, {
		events: ['scan.completed'],
		options: { templateIds: ['1'] },
	});
	await trigger.activate();
	sandbox.control.hold(true);
	const otherTemplate = await uploadScan(sandbox, 'delivery-note.pdf', 2);
	const [marker] = seed(sandbox, 1, 'completed', 1);
	expect(emittedIds(await trigger.poll())).toEqual([marker]); // emits, so n8n saves: pending = [otherTemplate]
	expect(trigger.savedNodeStaticData.pending).toEqual([otherTemplate]);

	sandbox.control.hold(false);
	await waitFinished(sandbox, otherTemplate);
	expect(await trigger.poll()).toBeNull(); // settles it in memory only
	expect(trigger.nodeStaticData.pending).toEqual([]);
	expect(trigger.savedNodeStaticData.pending).toEqual([otherTemplate]);

	const restarted = await trigger.restart();
	expect(await restarted.activate('init')).toBeNull();
	expect(restarted.nodeStaticData.pending).toEqual([]);
	const [next] = seed(sandbox, 1, 'completed', 1);
	expect(emittedIds(await restarted.poll())).toEqual([next]);
	expect(await restarted.poll()).toBeNull();
});

test('a failing first activation saves nothing; the next activation starts then', async () => {
	const trigger = await makePoll(sandbox);
	sandbox.control.addFault({ method: 'GET', path: '^/scans$', kind: 'status', status: 401 });
	await expect(trigger.activate()).rejects.toThrow(/Authentication failed/);
	expect(trigger.saved.saves).toBe(0);
	seed(sandbox, 3);
	expect(await trigger.activate()).toBeNull();
	expect(trigger.savedNodeStaticData.horizon).toBe(3);
});

test('deactivation keeps the state; reactivating later catches up on what finished meanwhile', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	trigger.deactivate();
	const meanwhile = seed(sandbox, 4);
	const again = await trigger.restart();
	expect(emittedIds(await again.activate())).toEqual(meanwhile);
	expect(again.saved.staticData).toEqual(JSON.parse(JSON.stringify(again.workflow.staticData)));
});
