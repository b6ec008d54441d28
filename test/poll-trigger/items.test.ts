/**
 * Document Scanning Poll Trigger: the item shape (the webhook trigger's), the event and
 * option filters, split rows, and "Fetch Test Event" (manual mode).
 */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox, startSandbox } from '../../sandbox/server';
import { emittedIds, makePoll, seed } from './helpers';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.control.reset());

/** The body the service would deliver to a webhook for this scan (signed path of the sandbox). */
async function webhookBody(
	event: 'scan.completed' | 'scan.failed',
	scanId: number,
): Promise<IDataObject> {
	sandbox.control.setOptions({ allowInsecureWebhookUrls: true });
	const res = await fetch(`${sandbox.baseUrl}/webhooks`, {
		method: 'POST',
		headers: {
			Authorization: `Bearer ${DEFAULT_API_KEY}`,
			'Content-Type': 'application/json',
			Accept: 'application/json',
		},
		body: JSON.stringify({
			name: 'compare',
			url: 'http://127.0.0.1:9/unreachable',
			events: [event],
		}),
	});
	const created = (await res.json()) as IDataObject;
	const id = ((created.data as IDataObject | undefined)?.id ?? created.id) as number;
	const record = await sandbox.control.deliver(id, event, scanId);
	return JSON.parse(record.body) as IDataObject;
}

describe('items', () => {
	test.each([
		['completed', 'scan.completed'],
		['validation_failed', 'scan.completed'],
		['failed', 'scan.failed'],
	] as const)(
		"a %s scan gives the webhook trigger's item: same event, data carries every field of the delivery",
		async (status, event) => {
			const trigger = await makePoll(sandbox);
			await trigger.activate();
			const [id] = seed(sandbox, 1, status, 3);
			const items = await trigger.poll();
			expect(items).toHaveLength(1);
			const item = items![0].json;
			const delivered = await webhookBody(event, id);

			expect(Object.keys(item)).toEqual(['event', 'timestamp', 'data']);
			expect(item.event).toBe(delivered.event);
			expect(item.data).toMatchObject(delivered.data as IDataObject);
			// The timestamp is when the scan reached its final state (its updated_at).
			expect(item.timestamp).toBe((item.data as IDataObject).updated_at);
			expect(Number.isFinite(Date.parse(String(item.timestamp)))).toBe(true);
			expect(item.data).not.toHaveProperty('id');
		},
	);

	test("the record's extra fields come along (reviewed_data, error_message, created_at)", async () => {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const [id] = sandbox.control.seedScans({
			count: 1,
			template_id: 1,
			reviewed_data: { invoice_number: 'FIXED-1' },
		});
		const [item] = (await trigger.poll())!;
		expect(item.json.data).toMatchObject({
			scan_id: id,
			reviewed_data: { invoice_number: 'FIXED-1' },
			error_message: null,
		});
		expect(item.json.data).toHaveProperty('created_at');
	});
});

describe('a partial review with "Split Into Table Rows"', () => {
	test('the extracted rows stay and the corrected header field wins; a reviewed table replaces the rows', async () => {
		const trigger = await makePoll(sandbox, {
			events: ['scan.completed'],
			options: { splitIntoRows: true },
		});
		await trigger.activate();
		const [header, table] = sandbox.control.seedScans({ count: 2, template_id: 3 });
		sandbox.control.setReviewedData(header, { invoice_number: 'PO-9999' });
		const corrected = [{ description: 'corrected', quantity: 2, unit_price: 5 }];
		sandbox.control.setReviewedData(table, { line_items: corrected });
		const extracted = sandbox.control.getScan(header)!.extractedData as IDataObject;
		const lineItems = extracted.line_items as IDataObject[];

		const items = (await trigger.poll())!.map((item) => item.json);
		const ofHeader = items.filter((item) => item.scan_id === header);
		expect(ofHeader).toHaveLength(lineItems.length);
		ofHeader.forEach((item, index) => {
			expect(item).toMatchObject({
				...lineItems[index],
				event: 'scan.completed',
				row_number: index + 1,
				reviewedFields: ['invoice_number'],
			});
			expect(item.document).toMatchObject({
				invoice_number: 'PO-9999',
				total_amount: extracted.total_amount,
			});
		});
		expect(items.filter((item) => item.scan_id === table)).toEqual([
			expect.objectContaining({
				...corrected[0],
				table: 'line_items',
				row_number: 1,
				reviewed: true,
				reviewedFields: ['line_items'],
			}),
		]);
	});
});

describe('filters', () => {
	function seedMix() {
		return {
			completed1: seed(sandbox, 1, 'completed', 1)[0],
			invalid1: seed(sandbox, 1, 'validation_failed', 1)[0],
			failed1: seed(sandbox, 1, 'failed', 1)[0],
			completed2: seed(sandbox, 1, 'completed', 2)[0],
			failed3: seed(sandbox, 1, 'failed', 3)[0],
			processing: seed(sandbox, 1, 'processing', 1)[0],
		};
	}

	test('events: only scan.failed', async () => {
		const trigger = await makePoll(sandbox, { events: ['scan.failed'] });
		await trigger.activate();
		const s = seedMix();
		expect(emittedIds(await trigger.poll())).toEqual([s.failed1, s.failed3]);
	});

	test('events: only scan.completed, without validation_failed', async () => {
		const trigger = await makePoll(sandbox, {
			events: ['scan.completed'],
			options: { includeValidationFailed: false },
		});
		await trigger.activate();
		const s = seedMix();
		expect(emittedIds(await trigger.poll())).toEqual([s.completed1, s.completed2]);
	});

	test('templates: a list, or IDs from an expression ("2,3")', async () => {
		for (const templateIds of [['2', '3'], '2, 3']) {
			sandbox.control.reset();
			const trigger = await makePoll(sandbox, {
				events: ['scan.completed', 'scan.failed'],
				options: { templateIds },
			});
			await trigger.activate();
			const s = seedMix();
			expect(emittedIds(await trigger.poll())).toEqual([s.completed2, s.failed3]);
		}
	});

	test('no events selected: nothing starts the workflow', async () => {
		const trigger = await makePoll(sandbox, { events: [] });
		await trigger.activate();
		seedMix();
		expect(await trigger.poll()).toBeNull();
	});
});

test('split into table rows: one item per row, with event and timestamp', async () => {
	const trigger = await makePoll(sandbox, {
		events: ['scan.completed', 'scan.failed'],
		options: { splitIntoRows: true },
	});
	await trigger.activate();
	const [tabular] = seed(sandbox, 1, 'completed', 2);
	const [failed] = seed(sandbox, 1, 'failed', 2);
	const items = (await trigger.poll())!.map((item) => item.json);

	const rows = (sandbox.control.getScan(tabular)!.extractedData as { rows: IDataObject[] }).rows;
	const rowItems = items.filter((item) => item.scan_id === tabular);
	expect(rowItems).toHaveLength(rows.length);
	rowItems.forEach((item, index) => {
		expect(item).toMatchObject({
			...rows[index],
			event: 'scan.completed',
			table: 'rows',
			row_number: index + 1,
		});
		expect(typeof item.timestamp).toBe('string');
	});
	// A scan without rows (failed) gives one item with its fields.
	const failedItems = items.filter((item) => item.scan_id === failed);
	expect(failedItems).toEqual([
		expect.objectContaining({ event: 'scan.failed', status: 'failed', scan_id: failed }),
	]);
});

describe('Fetch Test Event (manual mode)', () => {
	test('returns the newest finished scan that passes the filters, and leaves the state alone', async () => {
		const trigger = await makePoll(sandbox, {
			events: ['scan.completed'],
			options: { templateIds: ['1'] },
		});
		const [older] = seed(sandbox, 1, 'completed', 1);
		const [newest] = seed(sandbox, 1, 'completed', 1);
		seed(sandbox, 1, 'completed', 2); // other template
		seed(sandbox, 1, 'failed', 1); // other event
		seed(sandbox, 1, 'processing', 1); // not finished
		const items = await trigger.fetchTestEvent();
		expect(emittedIds(items)).toEqual([newest]);
		expect(emittedIds(items)).not.toContain(older);
		expect(trigger.workflow.staticData).toEqual({});
	});

	test('with no matching finished scan, a clear error', async () => {
		const trigger = await makePoll(sandbox, { events: ['scan.failed'] });
		seed(sandbox, 3, 'completed', 1);
		await expect(trigger.fetchTestEvent()).rejects.toThrow(
			'No finished scan matches this trigger yet',
		);
	});
});
