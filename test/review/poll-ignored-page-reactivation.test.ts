/**
 * Review of the poll trigger's failure under a service that ignores `page` (poll.ts
 * `unreachable`) with n8n's own runtime. n8n keeps a workflow's static data across deactivation
 * and runs the activation's first poll as a test that rethrows (`executeTrigger(true)`): the
 * advice it gave first ("deactivate and activate") failed the activation with the same error,
 * and the workflow could not be activated at all. The advice now is what resets the trigger's
 * memory: n8n keys a node's static data by its name (`node:<name>`), so a renamed trigger has
 * none (n8n-workflow `getStaticData`; `renameNode` leaves `staticData` alone and neither line's
 * editor sends `staticData` on save). Played here by the saved static data without the old
 * name's entry.
 */
import { type Sandbox } from '../../sandbox/server';
import { makePoll, seed, usePollSandbox } from '../poll-trigger/helpers';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));

test('ignored page, 30 scans since the last poll: deactivating alone keeps the failure; renaming the trigger, as the error advises, activates and goes on from the newest scan', async () => {
	sandbox.control.reset({ envelope: 'bare' });
	sandbox.control.setListing({ ignorePage: true });
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	seed(sandbox, 30, 'completed');
	const failure = await trigger.poll().then(
		() => undefined,
		(error: Error & { description?: string }) => error,
	);
	// On n8n 2 an active workflow runs its published version and Save does not publish (n8n's
	// ActiveWorkflowManager builds it from `activeVersion.nodes`): the advice says so.
	expect(failure?.description).toMatch(
		/rename this trigger node and save \(on n8n 2, publish it too/,
	);

	trigger.deactivate();
	const kept = await trigger.restart();
	// n8n: the activation runs the first poll as a test; its error fails the activation.
	await expect(kept.activate()).rejects.toThrow(/could not be listed/);

	const saved = kept.saved;
	for (const key of Object.keys(saved.staticData))
		if (key.startsWith('node:')) delete saved.staticData[key];
	const renamed = await kept.restart();
	await expect(renamed.activate()).resolves.toBeNull();
	const [later] = seed(sandbox, 1, 'completed');
	const items = await renamed.poll();
	expect((items ?? []).map((item) => (item.json.data as { scan_id: number }).scan_id)).toEqual([
		later,
	]);
});
