/**
 * The shipped once-patterns (issue 38 §2), with real deliveries through the trigger: the trigger
 * delivers at least once, so `scan-events.json` drops repeats with n8n's Remove Duplicates on
 * `deliveryKey`, and `deliveries-once-into-postgres.json` books each result once by a unique key
 * and keeps each scan's latest result by its signed `timestamp`. The Postgres example's own SQL
 * runs in PostgreSQL (PGlite, test/support/postgres-sink-process.mjs) with the parameters its expressions
 * give for the trigger's items, as n8n's Postgres node sends them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INode } from 'n8n-workflow';

import { isoWithOffset } from '../../sandbox/engine/clock';
import { DEFAULT_API_KEY, startSandbox, type Sandbox } from '../../sandbox/server';
import { signatureHeader } from '../../sandbox/signing';
import { startReceiver, type Receiver } from '../support/receiver';
import { runPostgresSink } from '../support/postgres-sink';
import { TriggerHarness } from '../support/trigger-harness';
import { itemsOf, postRaw } from '../trigger/helpers';

interface Workflow {
	nodes: INode[];
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}
const example = (file: string) =>
	JSON.parse(readFileSync(path.resolve(__dirname, '../../examples', file), 'utf8')) as Workflow;
const TRIGGER = 'n8n-nodes-document-scanning.documentScanningTrigger';
/** An n8n expression `={{ … }}` of plain JavaScript over `$json`, evaluated for one item. */
const evaluate = (expression: string, json: IDataObject): unknown =>
	new Function('$json', `return (${expression.replace(/^=\{\{([\s\S]*)\}\}$/, '$1')});`)(json);

let sandbox: Sandbox;
let receiver: Receiver;
let harness: TriggerHarness;
let secret: string;
let url: string;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20, allowInsecureWebhookUrls: true });
	receiver = await startReceiver(() => harness);
});
afterAll(async () => {
	await receiver.close();
	await sandbox.close();
});

async function activate(workflow: Workflow): Promise<void> {
	sandbox.control.reset();
	receiver.results.splice(0);
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER)!;
	harness = await TriggerHarness.create({
		parameters: trigger.parameters,
		env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY },
		webhookBaseUrl: receiver.baseUrl,
	});
	await harness.activate();
	const stored = harness.staticData[`node:${harness.node.name}`] as IDataObject;
	secret = String(stored.webhookSecret);
	url = String(stored.webhookUrl);
}

/** Signed deliveries as the service sends them; resolves with each one's items, in order. */
async function deliver(bodies: IDataObject[]): Promise<IDataObject[][]> {
	for (const body of bodies) {
		const raw = JSON.stringify(body);
		expect((await postRaw(url, raw, { 'X-Service-Signature': signatureHeader(secret, raw) })).status).toBe(200);
	}
	return (await receiver.waitFor(bodies.length)).map((result) => itemsOf(result));
}

const T = Date.now();
const failed = (at: number) => ({
	event: 'scan.failed',
	timestamp: isoWithOffset(T + at),
	data: { scan_id: 7, status: 'failed', error_message: 'The document could not be read' },
});
const completed = (at: number) => ({
	event: 'scan.completed',
	timestamp: isoWithOffset(T + at),
	data: { scan_id: 7, filename: 'a.pdf', status: 'completed', confidence: 97, extracted_data: { total: 10 }, validation_errors: [], is_partial: false },
});

test('scan-events: Remove Duplicates reads deliveryKey right after the trigger, and a resend (also restamped) carries the same value', async () => {
	const workflow = example('scan-events.json');
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER)!;
	const [next] = workflow.connections[trigger.name].main[0];
	const drop = workflow.nodes.find((node) => node.name === next.node)!;
	expect(drop).toMatchObject({ type: 'n8n-nodes-base.removeDuplicates', typeVersion: 2 });
	expect(drop.parameters).toMatchObject({
		operation: 'removeItemsSeenInPreviousExecutions',
		dedupeValue: '={{ $json.deliveryKey }}',
		options: { scope: 'workflow' },
	});
	await activate(workflow);
	const runs = await deliver([completed(0), completed(0), completed(5_000), failed(6_000)]);
	const values = runs.map((items) => evaluate(String(drop.parameters.dedupeValue), items[0]));
	expect(values[1]).toBe(values[0]);
	expect(values[2]).toBe(values[0]);
	expect(values[3]).not.toBe(values[0]);
	expect(await harness.hook('delete')).toBe(true);
});

describe('deliveries-once-into-postgres: its SQL in PostgreSQL with the items the trigger gives', () => {
	const workflow = example('deliveries-once-into-postgres.json');
	const sink = async (runs: IDataObject[][]) => await runPostgresSink(workflow, runs);

	it('a result that changes and changes back (failed, completed, failed), each sent twice: each result booked once, the scan ends on its newest result', async () => {
		await activate(workflow);
		const runs = await deliver([failed(0), completed(2_000), failed(4_000), completed(2_000), failed(4_000)]);
		const keys = runs.map((items) => String(items[0].deliveryKey));
		expect(keys[2]).toBe(keys[0]);
		const { latest, booked } = await sink(runs);
		expect(latest).toEqual([{ scan_id: 7, status: 'failed' }]);
		expect(booked).toEqual([
			{ delivery_key: keys[0], status: 'failed' },
			{ delivery_key: keys[1], status: 'completed' },
		]);
		expect(await harness.hook('delete')).toBe(true);
	});

	it('an older event arriving last (completed, late by the service) does not overwrite the newer one', async () => {
		await activate(workflow);
		const runs = await deliver([failed(0), failed(4_000), completed(2_000)]);
		const { latest } = await sink(runs);
		expect(latest).toEqual([{ scan_id: 7, status: 'failed' }]);
		expect(await harness.hook('delete')).toBe(true);
	});
});
