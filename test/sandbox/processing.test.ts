import { Sandbox, startSandbox } from '../../sandbox/server';
import { pdfBytes } from '../support/fixtures';
import { api, postScan, unwrap, waitForStatus } from '../support/sandbox-api';

const DELAY = 40;
const OFFSET_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/;

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: DELAY });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.control.reset());

async function getScan(id: number) {
	return unwrap((await api(sandbox, 'GET', `/scans/${id}`)).body);
}

describe('state transitions', () => {
	it('goes uploaded -> processing -> completed, each step observable while held', async () => {
		// Held, a scan moves only when the test steps it: no status can be passed between two polls.
		sandbox.control.hold(true);
		const { id } = unwrap((await postScan(sandbox, { filename: 'invoice.pdf' })).body);
		const uploaded = await getScan(id);
		expect(uploaded).toMatchObject({
			status: 'uploaded',
			confidence: null,
			extracted_data: null,
			validation_errors: null,
		});

		expect(sandbox.control.step(id)).toBe('processing');
		expect((await getScan(id)).status).toBe('processing');
		expect((await getScan(id)).status).toBe('processing');

		// Released, it goes on from processing by itself.
		sandbox.control.hold(false);
		const done = await waitForStatus(sandbox, id, ['completed']);
		expect(done).toEqual({
			id,
			status: 'completed',
			filename: 'invoice.pdf',
			template_id: 1,
			confidence: expect.any(Number),
			extracted_data: expect.any(Object),
			reviewed_data: null,
			validation_errors: [],
			is_partial: false,
			error_message: null,
			created_at: expect.stringMatching(OFFSET_TIMESTAMP),
			updated_at: expect.stringMatching(OFFSET_TIMESTAMP),
		});
		expect(done.confidence).toBeGreaterThanOrEqual(0);
		expect(done.confidence).toBeLessThanOrEqual(100);
		expect(Date.parse(done.updated_at)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
	});

	it('steps a held scan to its outcome; refuses to step without hold or past the end', async () => {
		sandbox.control.setNextOutcomes(['failed']);
		const { id } = unwrap((await postScan(sandbox, { filename: 'ok.pdf' })).body);
		expect(() => sandbox.control.step(id)).toThrow(/needs hold\(true\)/);
		sandbox.control.hold(true);
		expect(sandbox.control.step(id)).toBe('processing');
		expect(sandbox.control.step(id)).toBe('failed');
		expect(await getScan(id)).toMatchObject({
			status: 'failed',
			error_message: expect.any(String),
		});
		expect(sandbox.control.account().used_scans).toBe(0);
		expect(() => sandbox.control.step(id)).toThrow(/already failed/);
		expect(() => sandbox.control.step(999)).toThrow(/Scan 999 not found/);
		// Released, a finished scan stays as it is.
		sandbox.control.hold(false);
		expect((await getScan(id)).status).toBe('failed');
	});

	it('ends in failed for a file name containing "fail": error message, no data, credit returned', async () => {
		const { id } = unwrap((await postScan(sandbox, { filename: 'please-FAIL.pdf' })).body);
		expect(sandbox.control.account().used_scans).toBe(1);
		const failed = await waitForStatus(sandbox, id, ['failed', 'completed', 'validation_failed']);
		expect(failed).toMatchObject({
			status: 'failed',
			extracted_data: null,
			validation_errors: null,
			confidence: null,
		});
		expect(failed.error_message).toMatch(/\w+/);
		expect(sandbox.control.account().used_scans).toBe(0);
		expect(sandbox.control.getScan(id)?.charged).toBe(false);
	});

	it('ends in validation_failed for a file name containing "invalid": data kept, errors as {field, rule, message}', async () => {
		const { id } = unwrap(
			(await postScan(sandbox, { filename: 'invalid-invoice.pdf', templateId: 3 })).body,
		);
		const scan = await waitForStatus(sandbox, id, ['failed', 'completed', 'validation_failed']);
		expect(scan.status).toBe('validation_failed');
		expect(scan.extracted_data).toHaveProperty('line_items');
		expect(scan.validation_errors).toEqual([
			{ field: 'line_items.0.quantity', rule: 'min', message: expect.any(String) },
		]);
		expect(scan.extracted_data.line_items[0].quantity).toBe(0);
		expect(scan.error_message).toBeNull();
		expect(sandbox.control.account().used_scans).toBe(1);
	});

	it('takes queued outcomes first (FIFO), then falls back to the file-name rule', async () => {
		sandbox.control.setNextOutcomes(['failed', 'validation_failed']);
		const ids: number[] = [];
		for (const filename of ['ok-1.pdf', 'ok-2.pdf', 'ok-3.pdf'])
			ids.push(unwrap((await postScan(sandbox, { filename })).body).id);
		const statuses = [];
		for (const id of ids)
			statuses.push(
				(await waitForStatus(sandbox, id, ['failed', 'completed', 'validation_failed'])).status,
			);
		expect(statuses).toEqual(['failed', 'validation_failed', 'completed']);
		expect(() => sandbox.control.setNextOutcomes(['nope' as 'failed'])).toThrow(/outcome/);
	});
});

describe('extracted data', () => {
	it.each([
		[1, ['invoice_number', 'invoice_date', 'supplier_name', 'total_amount', 'currency']],
		[2, ['rows']],
		[
			3,
			['invoice_number', 'invoice_date', 'supplier_name', 'total_amount', 'currency', 'line_items'],
		],
		[4, ['document_type', 'merchant', 'total', 'date']],
	])('template %i gives the fields of its extraction mode', async (templateId, keys) => {
		const { id } = unwrap((await postScan(sandbox, { templateId })).body);
		const scan = await waitForStatus(sandbox, id, ['completed']);
		expect(Object.keys(scan.extracted_data)).toEqual(keys);
		const rows = scan.extracted_data.rows ?? scan.extracted_data.line_items;
		if (rows) {
			expect(rows.length).toBeGreaterThanOrEqual(2);
			expect(rows.length).toBeLessThanOrEqual(5);
			expect(Object.keys(rows[0])).toEqual([
				'position',
				'article_number',
				'description',
				'quantity',
				'unit',
				'unit_price',
			]);
		}
	});

	it('is deterministic for the same file name and content', async () => {
		const file = pdfBytes('same');
		sandbox.control.createAccount({ apiKeys: ['twin'] });
		const twinTemplate = sandbox.control.createTemplate({
			apiKey: 'twin',
			name: 'Invoice',
			extraction_mode: 'scalar',
		});
		const a = unwrap((await postScan(sandbox, { file, filename: 'x.pdf' })).body);
		const b = unwrap(
			(
				await postScan(sandbox, {
					file,
					filename: 'x.pdf',
					key: 'twin',
					templateId: twinTemplate.id,
				})
			).body,
		);
		const c = unwrap(
			(await postScan(sandbox, { file: pdfBytes('other'), filename: 'x.pdf' })).body,
		);
		const [sa, sb, sc] = await Promise.all([
			waitForStatus(sandbox, a.id, ['completed']),
			waitForStatus(sandbox, b.id, ['completed'], undefined, 'twin'),
			waitForStatus(sandbox, c.id, ['completed']),
		]);
		expect(sb.extracted_data).toEqual(sa.extracted_data);
		expect(sb.confidence).toBe(sa.confidence);
		expect(sc.extracted_data).not.toEqual(sa.extracted_data);
	});

	it('shows reviewed_data set through the control surface and on seeded scans', async () => {
		const [seeded] = sandbox.control.seedScans({ count: 1, reviewed_data: { total_amount: 10 } });
		expect((await getScan(seeded)).reviewed_data).toEqual({ total_amount: 10 });
		sandbox.control.setReviewedData(seeded, { total_amount: 12.5 });
		expect((await getScan(seeded)).reviewed_data).toEqual({ total_amount: 12.5 });
		sandbox.control.setReviewedData(seeded, null);
		expect((await getScan(seeded)).reviewed_data).toBeNull();
	});

	it('seeds scans in any status without credit or processing', async () => {
		const ids = sandbox.control.seedScans({ count: 3, status: 'processing', template_id: 2 });
		expect(sandbox.control.account().used_scans).toBe(0);
		// A scan uploaded after them runs through both steps; had the seeded ones been scheduled
		// too, their earlier timers would have fired first.
		const { id: uploaded } = unwrap((await postScan(sandbox)).body);
		await waitForStatus(sandbox, uploaded, ['completed']);
		for (const id of ids)
			expect(await getScan(id)).toMatchObject({
				status: 'processing',
				template_id: 2,
				extracted_data: null,
			});
		const [failed] = sandbox.control.seedScans({ count: 1, status: 'failed' });
		expect((await getScan(failed)).error_message).toEqual(expect.any(String));
		// Only the upload used a credit.
		expect(sandbox.control.account().used_scans).toBe(1);
		expect(() => sandbox.control.seedScans({ count: 1, template_id: 999 })).toThrow(/Template 999/);
	});
});
