/** The "Options" of the Document Scanning Trigger, with deliveries signed by the sandbox. */

import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox } from '../../sandbox/server';
import { type Receiver } from '../support/receiver';
import { type TriggerHarness, type WebhookCallResult } from '../support/trigger-harness';
import { asItem, itemsOf, makeHarness, nodeStatic, useTriggerStack } from './helpers';
import { ALL_EVENTS } from '../support/fixtures';
import { uploadScan } from '../support/sandbox-api';

let sandbox: Sandbox;
let receiver: Receiver;
let current: TriggerHarness;

useTriggerStack(
	() => current,
	(started) => ({ sandbox, receiver } = started),
);

async function activate(options: IDataObject, events: string[] = ALL_EVENTS): Promise<number> {
	current = await makeHarness(sandbox, receiver.baseUrl, { events, options } as never);
	await current.activate();
	return nodeStatic(current).webhookId as number;
}

function seed(status: string, templateId = 1, reviewed?: IDataObject): number {
	const [id] = sandbox.control.seedScans({
		count: 1,
		status: status as never,
		template_id: templateId,
		...(reviewed ? { reviewed_data: reviewed } : {}),
	});
	return id;
}

/** Delivers and returns the receiver's result for it plus the parsed body the service sent. */
async function deliver(webhookId: number, event: 'scan.completed' | 'scan.failed', scanId: number) {
	const before = receiver.results.length;
	const record = await sandbox.control.deliver(webhookId, event, scanId);
	const results = await receiver.waitFor(before + 1);
	return {
		record,
		result: results[before] as WebhookCallResult,
		body: JSON.parse(record.body) as IDataObject,
	};
}

describe('Template Names or IDs', () => {
	it('only scans of the selected templates start the workflow; others get 200 and nothing', async () => {
		const hook = await activate({ templateIds: ['2', '3'] });
		const other = await deliver(hook, 'scan.completed', seed('completed', 1));
		expect(other.record.success).toBe(true);
		expect(other.result.workflowData).toBeUndefined();
		expect(other.result.body).toMatchObject({ ignored: expect.stringContaining('template 1') });

		const selected = await deliver(hook, 'scan.completed', seed('completed', 3));
		expect(itemsOf(selected.result)).toEqual([asItem(selected.record.body)]);
		const failed = await deliver(hook, 'scan.failed', seed('failed', 2));
		expect(itemsOf(failed.result)).toEqual([asItem(failed.record.body)]);
	});

	it('takes a comma-separated string (expression) too', async () => {
		const hook = await activate({ templateIds: '4, 2' });
		expect(
			(await deliver(hook, 'scan.completed', seed('completed', 1))).result.workflowData,
		).toBeUndefined();
		expect(
			itemsOf((await deliver(hook, 'scan.completed', seed('completed', 4))).result),
		).toHaveLength(1);
	});

	it("the list offers the account's templates", async () => {
		const hook = await activate({});
		expect(hook).toBeGreaterThan(0);
		const nodeType = current.workflow.nodeTypes.getByNameAndVersion(
			current.node.type,
			1,
		) as unknown as {
			methods: {
				loadOptions: {
					getTemplates: (this: unknown) => Promise<Array<{ name: string; value: string }>>;
				};
			};
		};
		const { LoadOptionsContext } = await import('n8n-core');
		const additional = (current as unknown as { additionalData(): never }).additionalData();
		const ctx = new LoadOptionsContext(current.workflow, current.node, additional, '' as never);
		const options = await nodeType.methods.loadOptions.getTemplates.call(ctx);
		expect(options).toEqual(
			expect.arrayContaining([
				{ name: 'Invoice', value: '1' },
				{ name: 'Delivery note', value: '2' },
			]),
		);
		expect(options.map((o) => o.name)).not.toContain('Archived order form');
	});
});

describe('Include Validation Failed', () => {
	it('default: scan.completed with status validation_failed starts the workflow', async () => {
		const hook = await activate({});
		const { result, body, record } = await deliver(
			hook,
			'scan.completed',
			seed('validation_failed'),
		);
		expect((body.data as IDataObject).status).toBe('validation_failed');
		expect(itemsOf(result)).toEqual([asItem(record.body)]);
	});

	it('off: validation_failed is ignored with 200, completed still runs', async () => {
		const hook = await activate({ includeValidationFailed: false });
		const invalid = await deliver(hook, 'scan.completed', seed('validation_failed'));
		expect(invalid.record.success).toBe(true);
		expect(invalid.result.workflowData).toBeUndefined();
		const ok = await deliver(hook, 'scan.completed', seed('completed'));
		expect(itemsOf(ok.result)).toHaveLength(1);
	});

	it('off, with a real upload that ends validation_failed', async () => {
		await activate({ includeValidationFailed: false });
		await uploadScan(sandbox, 'invalid-total.pdf');
		const [delivery] = await sandbox.control.waitForDeliveries(1);
		const [result] = await receiver.waitFor(1);
		expect(JSON.parse(delivery.body).data.status).toBe('validation_failed');
		expect(result.status).toBe(200);
		expect(result.workflowData).toBeUndefined();
	});
});

describe('Include Full Scan', () => {
	it('adds the scan (with reviewed_data) under "scan", keeping event, timestamp and data', async () => {
		const hook = await activate({ includeFullScan: true });
		const scanId = seed('completed', 1, { invoice_number: 'R-1 corrected' });
		const { result, body, record } = await deliver(hook, 'scan.completed', scanId);
		const [item] = itemsOf(result);
		expect(record.success).toBe(true);
		expect(item.event).toBe(body.event);
		expect(item.timestamp).toBe(body.timestamp);
		const data = body.data as IDataObject;
		expect(item.data).toEqual({ ...data, original_filename: data.filename });
		expect(item.scan).toMatchObject({
			id: scanId,
			reviewed_data: { invoice_number: 'R-1 corrected' },
			status: 'completed',
		});
		expect(item.fetchError).toBeUndefined();
		expect(
			sandbox.control.requests().some((r) => r.method === 'GET' && r.path === `/scans/${scanId}`),
		).toBe(true);
	});

	it('scan.failed: the full scan carries error_message', async () => {
		const hook = await activate({ includeFullScan: true });
		const scanId = seed('failed');
		const [item] = itemsOf((await deliver(hook, 'scan.failed', scanId)).result);
		expect(item.event).toBe('scan.failed');
		expect(item.scan).toMatchObject({
			id: scanId,
			status: 'failed',
			error_message: expect.any(String),
		});
	});

	it('works with the bare envelope', async () => {
		sandbox.control.reset({ envelope: 'bare' });
		const hook = await activate({ includeFullScan: true });
		const scanId = seed('completed');
		const [item] = itemsOf((await deliver(hook, 'scan.completed', scanId)).result);
		expect(item.scan).toMatchObject({ id: scanId, status: 'completed' });
	});

	it('fetch fails: the delivery is still emitted, with fetchError and no scan; the service got 200', async () => {
		const hook = await activate({ includeFullScan: true });
		sandbox.control.addFault({ method: 'GET', path: '^/scans/\\d+$', kind: 'status500', times: 5 });
		const { result, body, record } = await deliver(hook, 'scan.completed', seed('completed'));
		const [item] = itemsOf(result);
		expect(record.status).toBe(200);
		expect(item).toMatchObject({ event: body.event, timestamp: body.timestamp, data: body.data });
		expect(item.scan).toBeUndefined();
		expect(item.fetchError).toMatch(/HTTP 500/);
		expect(JSON.stringify(item)).not.toContain(DEFAULT_API_KEY);
		// One attempt only: no retries that would hold the execution back.
		expect(sandbox.control.requests().filter((r) => r.path.startsWith('/scans/')).length).toBe(1);
	});

	it('a slow API: the service is answered at once, the fetch gives up after its timeout', async () => {
		const hook = await activate({ includeFullScan: true });
		// The API would answer after 60 s; the fetch gives up after FETCH_TIMEOUT_MS (5 s).
		sandbox.control.addFault({
			method: 'GET',
			path: '^/scans/\\d+$',
			kind: 'latency',
			latencyMs: 60_000,
		});
		const started = Date.now();
		const record = await sandbox.control.deliver(hook, 'scan.completed', seed('completed'));
		expect(record.success).toBe(true);
		// Answered before the fetch ended (far below its 5 s timeout, even on a busy machine).
		expect(record.durationMs).toBeLessThan(4_000);
		const [result] = await receiver.waitFor(1, 25_000);
		const elapsed = Date.now() - started;
		expect(elapsed).toBeGreaterThanOrEqual(4_500);
		// Well below the API's 60 s: the timeout ended the fetch, however slow the machine.
		expect(elapsed).toBeLessThan(30_000);
		const [item] = itemsOf(result);
		expect(item.fetchError).toMatch(/did not answer in time/);
		expect(item.scan).toBeUndefined();
		expect(item.data).toMatchObject({ status: 'completed' });
	}, 40_000);
});

describe('Split Into Table Rows', () => {
	it('one item per table row, each keeping event and timestamp', async () => {
		const hook = await activate({ splitIntoRows: true });
		const { result, body } = await deliver(hook, 'scan.completed', seed('completed', 2));
		const rows = ((body.data as IDataObject).extracted_data as IDataObject).rows as IDataObject[];
		expect(rows.length).toBeGreaterThanOrEqual(2);
		const items = itemsOf(result);
		expect(items).toHaveLength(rows.length);
		items.forEach((item, index) => {
			expect(item).toMatchObject({
				...rows[index],
				event: 'scan.completed',
				timestamp: body.timestamp,
				scan_id: (body.data as IDataObject).scan_id,
				table: 'rows',
				row_number: index + 1,
			});
		});
	});

	it('mixed template: line items become rows, header fields sit under document', async () => {
		const hook = await activate({ splitIntoRows: true });
		const { result, body } = await deliver(hook, 'scan.completed', seed('completed', 3));
		const extracted = (body.data as IDataObject).extracted_data as IDataObject;
		const items = itemsOf(result);
		expect(items).toHaveLength((extracted.line_items as IDataObject[]).length);
		expect(items[0]).toMatchObject({
			table: 'line_items',
			document: { invoice_number: extracted.invoice_number },
		});
	});

	it('with Include Full Scan the reviewed rows win', async () => {
		const hook = await activate({ splitIntoRows: true, includeFullScan: true });
		const reviewed = { rows: [{ position: 1, description: 'corrected', quantity: 3 }] };
		const { result, body } = await deliver(hook, 'scan.completed', seed('completed', 2, reviewed));
		expect(itemsOf(result)).toEqual([
			expect.objectContaining({
				event: body.event,
				timestamp: body.timestamp,
				description: 'corrected',
				quantity: 3,
				row_number: 1,
			}),
		]);
	});

	it('with Include Full Scan a reviewed table under rows replaces the line items extracted under line_items', async () => {
		const hook = await activate({ splitIntoRows: true, includeFullScan: true });
		const reviewed = { rows: [{ position: 1, description: 'corrected', quantity: 3 }] };
		const { result, body } = await deliver(hook, 'scan.completed', seed('completed', 3, reviewed));
		const extracted = (body.data as IDataObject).extracted_data as IDataObject;
		expect((extracted.line_items as IDataObject[]).length).toBeGreaterThan(1);
		expect(itemsOf(result)).toEqual([
			expect.objectContaining({
				description: 'corrected',
				table: 'line_items',
				row_number: 1,
				reviewedFields: ['line_items'],
			}),
		]);
	});

	it('with Include Full Scan a partial review keeps the extracted rows and corrects the header field', async () => {
		const hook = await activate({ splitIntoRows: true, includeFullScan: true });
		const { result, body } = await deliver(
			hook,
			'scan.completed',
			seed('completed', 3, { invoice_number: 'PO-9999' }),
		);
		const extracted = (body.data as IDataObject).extracted_data as IDataObject;
		const lineItems = extracted.line_items as IDataObject[];
		const items = itemsOf(result);
		expect(items).toHaveLength(lineItems.length);
		items.forEach((item, index) => {
			expect(item).toMatchObject({
				...lineItems[index],
				row_number: index + 1,
				reviewed: true,
				reviewedFields: ['invoice_number'],
			});
			expect(item.document).toMatchObject({
				invoice_number: 'PO-9999',
				total_amount: extracted.total_amount,
			});
		});
	});

	it('a scan without tables (scalar, or scan.failed) gives one item', async () => {
		const hook = await activate({ splitIntoRows: true });
		const scalar = await deliver(hook, 'scan.completed', seed('completed', 1));
		const scalarItems = itemsOf(scalar.result);
		expect(scalarItems).toHaveLength(1);
		expect(scalarItems[0]).toMatchObject({
			event: 'scan.completed',
			scan_id: (scalar.body.data as IDataObject).scan_id,
		});
		const failed = await deliver(hook, 'scan.failed', seed('failed', 2));
		expect(itemsOf(failed.result)).toEqual([
			expect.objectContaining({ event: 'scan.failed', status: 'failed' }),
		]);
	});
});
