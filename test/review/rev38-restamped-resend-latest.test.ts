/**
 * Review of issue 38 §2 from outside: "A scan whose result changes and changes back must not
 * leave a sink that follows the shipped examples on a stale state." The key is built to stay the
 * same for "a resend, a re-signing and a restamp of one event", so a restamped resend is a case
 * the package itself expects; the sandbox sends one with `repeatDelivery({ restamp: true })`.
 * `deliveries-once-into-postgres.json` keeps "the latest result" by the signed `timestamp`: a
 * restamped resend of the scan's older result carries the newest timestamp and overwrites the
 * newer result. The example's own SQL runs in PostgreSQL (test/support/postgres-sink-process.mjs).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INode } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox, startSandbox } from '../../sandbox/server';
import { type Receiver, startReceiver } from '../support/receiver';
import { runPostgresSink } from '../support/postgres-sink';
import { TriggerHarness } from '../support/trigger-harness';
import { itemsOf } from '../trigger/helpers';

const workflow = JSON.parse(
	readFileSync(
		path.resolve(__dirname, '../../examples/deliveries-once-into-postgres.json'),
		'utf8',
	),
) as { nodes: INode[] };
const triggerNode = workflow.nodes.find((node) => /documentScanningTrigger$/.test(node.type))!;

let sandbox: Sandbox;
let receiver: Receiver;
let harness: TriggerHarness;

beforeAll(async () => {
	sandbox = await startSandbox({ allowInsecureWebhookUrls: true, processingDelayMs: 20 });
	receiver = await startReceiver(() => harness);
});
afterAll(async () => {
	await receiver.close();
	await sandbox.close();
});

const sink = async (runs: IDataObject[][]) => await runPostgresSink(workflow, runs);

test('failed, processed again to completed, then the failed event resent restamped: the sink ends on the scan’s status (completed)', async () => {
	sandbox.control.reset();
	harness = await TriggerHarness.create({
		parameters: triggerNode.parameters,
		env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY },
		webhookBaseUrl: receiver.baseUrl,
		typeVersion: triggerNode.typeVersion,
	});
	await harness.activate();
	const webhookId = Number(
		(harness.staticData['node:Document Scanning Trigger'] as IDataObject).webhookId,
	);

	const [scanId] = sandbox.control.seedScans({ count: 1, status: 'failed' });
	await sandbox.control.deliver(webhookId, 'scan.failed', scanId); // delivery 0
	sandbox.control.advanceClock(2_000);
	sandbox.control.reprocessScan(scanId, 'completed'); // delivery 1: scan.completed
	await sandbox.control.waitForDeliveries(2);
	sandbox.control.advanceClock(2_000);
	await sandbox.control.repeatDelivery({ index: 0, restamp: true }); // the failed event again

	const runs = (await receiver.waitFor(3)).map((result) => itemsOf(result));
	expect(runs.map((items) => items[0].event)).toEqual([
		'scan.failed',
		'scan.completed',
		'scan.failed',
	]);
	expect(runs[2][0].deliveryKey).toBe(runs[0][0].deliveryKey); // recognised as the same result

	const { latest, booked } = await sink(runs);
	expect(booked.map((row) => row.status)).toEqual(['failed', 'completed']); // once each: holds
	expect(sandbox.control.getScan(scanId)!.status).toBe('completed');
	expect(latest).toEqual([{ scan_id: scanId, status: 'completed' }]);
});
