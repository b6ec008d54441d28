/**
 * The poll trigger emits every finished scan with its data (issue 33 §5), and with the name the
 * user gave its file (issue 32 §11). The spec promises every field only for GET /scans/{id}; with
 * brief listed records (the sandbox's `listedScans: 'brief'`) a new finished scan is read by ID
 * before it is emitted, at most MAX_WHOLE_READS a poll; the rest wait for the next poll.
 */
import type { IDataObject } from 'n8n-workflow';

import { MAX_WHOLE_READS } from '../../nodes/DocumentScanningPollTrigger/listing';
import { type Sandbox } from '../../sandbox/server';
import { emittedIds, makePoll, requestLines, seed, usePollSandbox } from './helpers';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));

const FIELDS = [
	'extracted_data',
	'reviewed_data',
	'validation_errors',
	'is_partial',
	'error_message',
];

describe.each(['brief', 'full'] as const)('listed records %s', (listedScans) => {
	beforeEach(() => sandbox.control.setOptions({ listedScans }));

	it('every emitted scan carries every field of GET /scans/{id}; a brief one costs one read by ID', async () => {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const ids = [...seed(sandbox, 2, 'completed', 3), ...seed(sandbox, 1, 'failed', 3)];
		sandbox.control.clearRequests();
		const items = await trigger.poll();
		expect(emittedIds(items).sort((a, b) => a - b)).toEqual(ids);
		for (const item of items!) {
			const data = item.json.data as IDataObject;
			for (const field of FIELDS) expect(data).toHaveProperty(field);
			expect(data.original_filename).toBe(data.filename);
		}
		const reads = requestLines(sandbox).filter((line) => /^GET \/scans\/\d+$/.test(line));
		expect(reads).toEqual(listedScans === 'brief' ? ids.map((id) => `GET /scans/${id}`) : []);
	});

	it('Split Into Table Rows: one item per line item (4), not one per scan', async () => {
		const trigger = await makePoll(sandbox, {
			events: ['scan.completed'],
			options: { splitIntoRows: true },
		});
		await trigger.activate();
		const [id] = sandbox.control.seedScans({
			count: 1,
			template_id: 3,
			extracted_data: {
				invoice_number: 'R-9',
				line_items: [1, 2, 3, 4].map((n) => ({ description: `item ${n}`, quantity: n })),
			},
		});
		const items = (await trigger.poll())!;
		expect(items.map((item) => item.json.row_number)).toEqual([1, 2, 3, 4]);
		expect(items.every((item) => item.json.scan_id === id)).toBe(true);
	});
});

describe('bounded reads by ID (brief listed records)', () => {
	beforeEach(() => sandbox.control.setOptions({ listedScans: 'brief' }));

	it(`more new finished scans than ${MAX_WHOLE_READS}: the first ${MAX_WHOLE_READS} now, the rest at the next poll, each once, none without its data`, async () => {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const ids = seed(sandbox, MAX_WHOLE_READS + 5);
		sandbox.control.clearRequests();
		const first = await trigger.poll();
		const reads = requestLines(sandbox).filter((line) => /^GET \/scans\/\d+$/.test(line));
		expect(reads).toHaveLength(MAX_WHOLE_READS);
		const second = await trigger.poll();
		expect([...emittedIds(first), ...emittedIds(second)].sort((a, b) => a - b)).toEqual(ids);
		for (const item of [...first!, ...second!])
			expect(item.json.data).toHaveProperty('extracted_data');
		expect(await trigger.poll()).toBeNull();
	});

	it('a read by ID that fails leaves the scan for a later poll, after its back-off (not emitted brief, not lost)', async () => {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const [id] = seed(sandbox, 1);
		sandbox.control.addFault({
			method: 'GET',
			path: `^/scans/${id}$`,
			kind: 'status500',
		});
		expect(await trigger.poll()).toBeNull();
		const stuck = trigger.nodeStaticData.stuck as Record<string, { nextAt: number }>;
		expect(stuck[String(id)]).toMatchObject({ failures: 1 });
		stuck[String(id)].nextAt = 0; // the back-off is over
		const items = await trigger.poll();
		expect(emittedIds(items)).toEqual([id]);
		expect(items![0].json.data).toHaveProperty('extracted_data');
	});

	it('filtered-out scans are not read by ID', async () => {
		const trigger = await makePoll(sandbox, { events: ['scan.failed'] });
		await trigger.activate();
		seed(sandbox, 3, 'completed');
		const [failed] = seed(sandbox, 1, 'failed');
		sandbox.control.clearRequests();
		expect(emittedIds(await trigger.poll())).toEqual([failed]);
		expect(requestLines(sandbox).filter((line) => line.startsWith('GET /scans/'))).toEqual([
			`GET /scans/${failed}`,
		]);
	});

	it('filtered-out scans are settled from their brief records: later polls do not follow them', async () => {
		const trigger = await makePoll(sandbox, { events: ['scan.failed'] });
		await trigger.activate();
		seed(sandbox, 60, 'completed');
		expect(await trigger.poll()).toBeNull();
		expect(trigger.nodeStaticData.pending).toEqual([]);
		sandbox.control.clearRequests();
		expect(await trigger.poll()).toBeNull();
		expect(requestLines(sandbox)).toEqual(['GET /scans?page=1']);
	});

	it('Fetch Test Event shows the newest finished scan with its data', async () => {
		const trigger = await makePoll(sandbox);
		const [id] = seed(sandbox, 1);
		const items = await trigger.fetchTestEvent();
		expect(emittedIds(items)).toEqual([id]);
		expect(items![0].json.data).toHaveProperty('extracted_data');
	});

	it('a scan uploaded with the content fingerprint shows the name the user gave as original_filename', async () => {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		sandbox.control.seedScans({ count: 1, filename: 'invoice-2024.ds-1a7c7e426dbf.pdf' });
		const data = (await trigger.poll())![0].json.data as IDataObject;
		expect(data).toMatchObject({
			filename: 'invoice-2024.ds-1a7c7e426dbf.pdf',
			original_filename: 'invoice-2024.pdf',
		});
		expect(Object.keys(data).indexOf('original_filename')).toBe(
			Object.keys(data).indexOf('filename') + 1,
		);
	});
});
