/**
 * A partial review (reviewed_data with some fields) in the action node's shaped outputs:
 * reviewed values are merged over the extracted ones field by field; Raw Scan is unchanged.
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

/** A mixed-template scan (invoice fields + line_items) whose reviewer corrected `fields`. */
function reviewedScan(fields: IDataObject): { id: number; extracted: IDataObject } {
	const [id] = sb.get().control.seedScans({ count: 1, template_id: 3 });
	sb.get().control.setReviewedData(id, fields);
	const extracted = sb.get().control.getScan(id)!.extractedData as IDataObject;
	return { id, extracted };
}

describe('a partial review in the action node', () => {
	test('"Extracted Fields": the corrected field wins, every other extracted field stays, reviewedFields names it', async () => {
		const { id, extracted } = reviewedScan({ invoice_number: 'PO-9999' });
		const result = await run(sb.env(), get(id, 'fields'));
		expect(result.error).toBeUndefined();
		const [item] = jsonOf(result);
		const { invoice_number: _replaced, ...untouched } = extracted;
		expect(Object.keys(untouched).length).toBeGreaterThan(1);
		expect(item).toMatchObject({
			...untouched,
			invoice_number: 'PO-9999',
			scan_id: id,
			reviewed: true,
			reviewedFields: ['invoice_number'],
		});
	});

	test('"One Item per Table Row": the extracted line items stay when the review corrects a header field', async () => {
		const { id, extracted } = reviewedScan({ invoice_number: 'PO-9999' });
		const lineItems = extracted.line_items as IDataObject[];
		const result = await run(sb.env(), get(id, 'rows'));
		const items = jsonOf(result);
		expect(items).toHaveLength(lineItems.length);
		items.forEach((item, index) => {
			expect(item).toMatchObject({
				...lineItems[index],
				table: 'line_items',
				row_number: index + 1,
				reviewedFields: ['invoice_number'],
			});
			expect((item.document as IDataObject).invoice_number).toBe('PO-9999');
			expect((item.document as IDataObject).total_amount).toBe(extracted.total_amount);
		});
	});

	test('"One Item per Table Row": a reviewed table replaces the extracted one', async () => {
		const corrected = [{ description: 'corrected', quantity: 2, unit_price: 5 }];
		const { id, extracted } = reviewedScan({ line_items: corrected });
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
		expect((items[0].document as IDataObject).invoice_number).toBe(extracted.invoice_number);
	});

	test('an unreviewed scan: reviewed false, reviewedFields empty; Raw Scan stays as the API gives it', async () => {
		const [plain] = sb.get().control.seedScans({ count: 1, template_id: 1 });
		expect(jsonOf(await run(sb.env(), get(plain, 'fields')))[0]).toMatchObject({
			reviewed: false,
			reviewedFields: [],
		});
		const { id, extracted } = reviewedScan({ invoice_number: 'PO-9999' });
		const [raw] = jsonOf(await run(sb.env(), get(id, 'raw')));
		expect(raw).toMatchObject({
			id,
			extracted_data: extracted,
			reviewed_data: { invoice_number: 'PO-9999' },
		});
		expect(raw).not.toHaveProperty('reviewedFields');
	});
});
