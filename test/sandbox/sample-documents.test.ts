/**
 * The sample invoices `npm start` and the e2e write (tools/n8n/sample-invoices.mjs) are read, not
 * invented: a scan of each returns what the PDF says, in every extraction mode. Other files still
 * get invented data.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { pdfTextLines } from '../../sandbox/engine/pdf-text';
import { Sandbox, startSandbox } from '../../sandbox/server';
import { pdfBytes } from '../support/fixtures';
import { postScan, unwrap, waitForStatus } from '../support/sandbox-api';

const ROOT = path.resolve(__dirname, '../..');

/** The samples as the repository's generator writes them: { file: { lines, pdf } }. */
function writeSamples(): Record<string, { lines: string[]; pdf: Buffer }> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'sample-invoices-'));
	try {
		const script = `
      import { SAMPLE_INVOICES, writeSampleInvoices } from ${JSON.stringify(path.join(ROOT, 'tools/n8n/sample-invoices.mjs'))};
      writeSampleInvoices(${JSON.stringify(dir)});
      process.stdout.write(JSON.stringify(SAMPLE_INVOICES));`;
		const samples = JSON.parse(
			execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
		) as Array<{
			file: string;
			lines: string[];
		}>;
		return Object.fromEntries(
			samples.map((s) => [s.file, { lines: s.lines, pdf: readFileSync(path.join(dir, s.file)) }]),
		);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

const samples = writeSamples();

/** What each sample says, written out by hand from tools/n8n/sample-invoices.mjs. */
const EXPECTED: Record<string, Record<string, unknown>> = {
	'invoice-1001-acme.pdf': {
		invoice_number: '1001',
		invoice_date: '2024-03-04',
		supplier_name: 'ACME Office Supplies',
		total_amount: 33.5,
		currency: 'EUR',
		line_items: [
			{
				position: 1,
				article_number: null,
				description: 'Paper A4 box',
				quantity: 2,
				unit: 'pcs',
				unit_price: 12,
			},
			{
				position: 2,
				article_number: null,
				description: 'Stapler',
				quantity: 1,
				unit: 'pcs',
				unit_price: 9.5,
			},
		],
	},
	'invoice-1002-globex.pdf': {
		invoice_number: '1002',
		invoice_date: '2024-03-11',
		supplier_name: 'Globex Hardware',
		total_amount: 29.85,
		currency: 'EUR',
		line_items: [
			{
				position: 1,
				article_number: null,
				description: 'USB-C cable',
				quantity: 3,
				unit: 'pcs',
				unit_price: 9.95,
			},
		],
	},
	'invoice-1003-initech.pdf': {
		invoice_number: '1003',
		invoice_date: '2024-03-18',
		supplier_name: 'Initech Services',
		total_amount: 680,
		currency: 'EUR',
		line_items: [
			{
				position: 1,
				article_number: null,
				description: 'Consulting',
				quantity: 5,
				unit: 'h',
				unit_price: 120,
			},
			{
				position: 2,
				article_number: null,
				description: 'Travel',
				quantity: 1,
				unit: 'pcs',
				unit_price: 80,
			},
		],
	},
};

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 5 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.control.reset());

async function scan(file: string, pdf: Buffer, templateId = 3): Promise<any> {
	const reply = await postScan(sandbox, { file: pdf, filename: file, templateId });
	expect(reply.status).toBe(201);
	return waitForStatus(sandbox, unwrap(reply.body).id, [
		'completed',
		'validation_failed',
		'failed',
	]);
}

test('every sample has its expected data written out here', () => {
	expect(Object.keys(samples).sort()).toEqual(Object.keys(EXPECTED).sort());
});

test.each(Object.keys(EXPECTED))('the text of %s is read line by line', (file) => {
	expect(pdfTextLines(samples[file].pdf)).toEqual(
		samples[file].lines.map((l) => l.replace(/\s+/g, ' ').trim()),
	);
});

test.each(Object.keys(EXPECTED))(
	'a scan of %s (template "Invoice with line items") returns what the PDF says',
	async (file) => {
		const done = await scan(file, samples[file].pdf);
		expect(done.status).toBe('completed');
		expect(done.extracted_data).toEqual(EXPECTED[file]);
	},
);

test('the other extraction modes map the same facts onto their fields', async () => {
	const { pdf } = samples['invoice-1002-globex.pdf'];
	const globex = EXPECTED['invoice-1002-globex.pdf'];
	const { line_items: rows, ...fields } = globex;
	expect((await scan('globex.pdf', pdf, 1)).extracted_data).toEqual(fields);
	expect((await scan('globex.pdf', pdf, 2)).extracted_data).toEqual({ rows });
	expect((await scan('globex.pdf', pdf, 4)).extracted_data).toEqual({
		document_type: 'invoice',
		merchant: 'Globex Hardware',
		total: 29.85,
		date: '2024-03-11',
	});
});

test('a validation_failed scan of a sample breaks one rule in the data it read', async () => {
	sandbox.control.setNextOutcomes(['validation_failed']);
	const done = await scan('invoice-1002-globex.pdf', samples['invoice-1002-globex.pdf'].pdf);
	expect(done.status).toBe('validation_failed');
	expect(done.extracted_data.supplier_name).toBe('Globex Hardware');
	expect(done.extracted_data.line_items[0].quantity).toBe(0);
	expect(done.validation_errors).toEqual([
		expect.objectContaining({ field: 'line_items.0.quantity', rule: 'min' }),
	]);
});

test('a PDF without readable text still gets invented data', async () => {
	const done = await scan('other.pdf', pdfBytes('no text'));
	expect(done.status).toBe('completed');
	expect(done.extracted_data.line_items.length).toBeGreaterThanOrEqual(2);
	expect(done.extracted_data.line_items[0].article_number).toMatch(/^ART-\d{5}$/);
	expect(done.extracted_data.invoice_number).toMatch(/^INV-2024-\d{5}$/);
});
