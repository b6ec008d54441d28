/**
 * Review of issue 33 §2 and issue 32 §11 from outside, under every `scan.failed` body the sandbox
 * plays (option `failedBody`; the API documentation does not show that body). The trigger read
 * the scan a delivery names from `data.scan_id`, else `data.id`. The `topLevel` shape names it as
 * `scan_id` next to `event`, without `data`: "Include Full Scan" failed on every such delivery
 * ("names no data.scan_id"), although the body names the scan, and the item had no
 * `original_filename` although it carries the scan's `filename`. Now both hold for every shape.
 */
import type { IDataObject } from 'n8n-workflow';

import { FAILED_BODIES } from '../../sandbox/engine/failed-bodies';
import { type Sandbox } from '../../sandbox/server';
import type { Receiver } from '../support/receiver';
import type { TriggerHarness } from '../support/trigger-harness';
import { itemsOf, makeHarness, nodeStatic, useTriggerStack } from '../trigger/helpers';

let sandbox: Sandbox;
let receiver: Receiver;
let current: TriggerHarness;
useTriggerStack(
	() => current,
	(started) => ({ sandbox, receiver } = started),
);

describe.each(FAILED_BODIES)('scan.failed body "%s"', (failedBody) => {
	test('Include Full Scan reads the scan the delivery names; the item has original_filename', async () => {
		sandbox.control.setOptions({ failedBody });
		current = await makeHarness(sandbox, receiver.baseUrl, {
			events: ['scan.failed'],
			options: { includeFullScan: true },
		});
		await current.activate();
		const [scanId] = sandbox.control.seedScans({
			count: 1,
			status: 'failed' as never,
			filename: 'invoice-7.ds-1a7c7e426dbf.pdf',
		});
		const answer = await sandbox.control.deliver(
			nodeStatic(current).webhookId as number,
			'scan.failed',
			scanId,
		);
		expect(answer.status).toBe(200);
		const [item] = itemsOf((await receiver.waitFor(1))[0]);
		expect(item.fetchError).toBeUndefined();
		expect((item.scan as IDataObject).id).toBe(scanId);
		const named = (item.data ?? item) as IDataObject;
		expect(named.original_filename).toBe('invoice-7.pdf');
	});
});
