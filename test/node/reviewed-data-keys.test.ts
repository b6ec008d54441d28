/**
 * A reviewed table under the other key (issue 25, section 7): the API puts table rows under
 * `rows` or under the table field's key, and extracted_data and reviewed_data need not agree.
 * A reviewed table replaces the extracted one whichever key each side uses; when it could
 * replace more than one extracted table, every table is kept and each record says so.
 * Run through n8n-core's engine (Scan → Get, Get Many) against the sandbox.
 */
import type { IDataObject } from 'n8n-workflow';

import { jsonOf, run, useSandbox } from './helpers';

const sb = useSandbox();

const get = (scanId: number, output: string) => ({
	resource: 'scan',
	operation: 'get',
	scanId: String(scanId),
	options: { output },
});

const TABULAR = 2; // "Delivery note": extracted rows under `rows`
const MIXED = 3; // "Invoice with line items": extracted rows under `line_items`

const corrected = [{ description: 'corrected', quantity: 2, unit_price: 5 }];

/** A scan of `template` reviewed with `reviewed`; its extracted data as the sandbox made it. */
function seed(
	template: number,
	reviewed: IDataObject,
	extracted?: IDataObject,
): { id: number; extracted: IDataObject } {
	const [id] = sb.get().control.seedScans({
		count: 1,
		template_id: template,
		reviewed_data: reviewed,
		...(extracted === undefined ? {} : { extracted_data: extracted }),
	});
	return { id, extracted: sb.get().control.getScan(id)!.extractedData as IDataObject };
}

describe('a reviewed table under the other key than the extracted one', () => {
	test('extracted under line_items, reviewed under rows: "One Item per Table Row" gives only the corrected row, under line_items', async () => {
		const { id, extracted } = seed(MIXED, { rows: corrected });
		expect((extracted.line_items as IDataObject[]).length).toBeGreaterThan(1);
		const items = jsonOf(await run(sb.env(), get(id, 'rows')));
		expect(items).toEqual([
			expect.objectContaining({
				...corrected[0],
				table: 'line_items',
				row_number: 1,
				reviewed: true,
				reviewedFields: ['line_items'],
			}),
		]);
		expect(items[0]).not.toHaveProperty('tableConflict');
		expect((items[0].document as IDataObject).invoice_number).toBe(extracted.invoice_number);
	});

	test('extracted under line_items, reviewed under rows: "Extracted Fields" holds the corrected table under line_items and no rows', async () => {
		const { id } = seed(MIXED, { rows: corrected });
		const [item] = jsonOf(await run(sb.env(), get(id, 'fields')));
		expect(item.line_items).toEqual(corrected);
		expect(item).not.toHaveProperty('rows');
		expect(item.reviewedFields).toEqual(['line_items']);
	});

	test('extracted under rows, reviewed under line_items: only the corrected row, under rows', async () => {
		const { id, extracted } = seed(TABULAR, { line_items: corrected });
		expect((extracted.rows as IDataObject[]).length).toBeGreaterThan(1);
		const items = jsonOf(await run(sb.env(), get(id, 'rows')));
		expect(items).toEqual([
			expect.objectContaining({ ...corrected[0], table: 'rows', reviewedFields: ['rows'] }),
		]);
	});

	test('both under rows, and both under the field key: the reviewed table replaces the extracted one', async () => {
		const tabular = seed(TABULAR, { rows: corrected });
		const mixed = seed(MIXED, { line_items: corrected });
		for (const [id, table] of [
			[tabular.id, 'rows'],
			[mixed.id, 'line_items'],
		] as const) {
			const items = jsonOf(await run(sb.env(), get(id, 'rows')));
			expect(items).toEqual([expect.objectContaining({ ...corrected[0], table })]);
		}
	});

	test('a review that removed every row under the other key: no rows of the old table, one record for the scan', async () => {
		const { id } = seed(MIXED, { rows: [] });
		const items = jsonOf(await run(sb.env(), get(id, 'rows')));
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({ scan_id: id, line_items: [], reviewedFields: ['line_items'] });
	});

	test('two extracted tables and a reviewed one under rows: nothing is guessed, all are kept and every record names the conflict', async () => {
		const extracted = {
			invoice_number: 'INV-1',
			line_items: [{ description: 'a' }, { description: 'b' }],
			taxes: [{ rate: 19 }],
		};
		const { id } = seed(MIXED, { rows: corrected }, extracted);
		const items = jsonOf(await run(sb.env(), get(id, 'rows')));
		expect(items.map((item) => item.table)).toEqual(['line_items', 'line_items', 'taxes', 'rows']);
		for (const item of items) {
			expect(item.tableConflict).toMatch(/"rows".*"line_items" and "taxes".*kept/);
		}
		const listed = jsonOf(
			await run(sb.env(), {
				resource: 'scan',
				operation: 'getAll',
				returnAll: true,
				options: { output: 'fields' },
			}),
		).find((item) => item.scan_id === id);
		expect(listed).toMatchObject({
			line_items: extracted.line_items,
			taxes: extracted.taxes,
			rows: corrected,
			tableConflict: expect.stringContaining('not known'),
		});
	});

	test('two tables, the one under rows corrected under its key, the other under its own key: each replaced where it belongs', async () => {
		const extracted = { rows: [{ description: 'old' }], taxes: [{ rate: 7 }] };
		const reviewed = { line_items: corrected, taxes: [{ rate: 19 }] };
		const { id } = seed(MIXED, reviewed, extracted);
		const items = jsonOf(await run(sb.env(), get(id, 'rows')));
		expect(items.map((item) => [item.table, item.description ?? item.rate])).toEqual([
			['rows', 'corrected'],
			['taxes', 19],
		]);
		expect(items[0].reviewedFields).toEqual(['rows', 'taxes']);
	});
});
