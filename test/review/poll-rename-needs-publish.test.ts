/**
 * Review of the poll trigger's advice under a service that ignores `page` (poll.ts
 * `unreachable`) against n8n's source. Renaming resets the trigger's memory on both lines: the
 * static data key is `node:<name>` (n8n-workflow `Workflow.getStaticData`), `renameNode` leaves
 * `staticData` alone, and neither editor sends `staticData` on save. But on n8n 2 an active
 * workflow runs its published version (n8n's ActiveWorkflowManager builds the Workflow from
 * `activeVersion.nodes`) and the editor's Save does not publish: a renamed and saved trigger
 * kept polling under its old name, failing as before. On 1.123 (draft/publish off by default)
 * Save of an active workflow re-adds it with the new nodes.
 *
 * Fixed: the advice says to publish on n8n 2.
 */
import { type Sandbox } from '../../sandbox/server';
import { makePoll, seed, usePollSandbox } from '../poll-trigger/helpers';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));

test('ignored page, 30 scans since the last poll: the advice to rename names publishing on n8n 2', async () => {
	sandbox.control.reset({ envelope: 'bare' });
	sandbox.control.setListing({ ignorePage: true });
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	seed(sandbox, 30, 'completed');
	const failure = await trigger.poll().then(
		() => undefined,
		(error: Error & { description?: string }) => error,
	);
	expect(failure?.description).toMatch(
		/rename this trigger node and save \(on n8n 2, publish it too/,
	);
});
