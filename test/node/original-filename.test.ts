/**
 * The name the user gave the file (issue 32 §11): every item of the action node that carries a
 * scan has `original_filename` right after the service's `filename`: the stored name without
 * the node's `.ds-<12 hex>` fingerprint (version 1.1 uploads), or the name as stored for scans
 * uploaded without it. Upload, Get and Get Many, in every Output mode, through n8n-core's engine.
 */
import type { IDataObject } from 'n8n-workflow';

import { binaryItem, pdfBytes } from '../support/fixtures';
import { FAST_WAIT, jsonOf, LATEST, run, uploadParams, useSandbox } from './helpers';

const sb = useSandbox();
const pdf = (name: string) => binaryItem(pdfBytes(name), name, 'application/pdf');

/** The item's keys, to check `original_filename` follows `filename`. */
const nextToFilename = (item: IDataObject) => {
	const keys = Object.keys(item);
	return keys.indexOf('original_filename') === keys.indexOf('filename') + 1;
};

describe('Upload', () => {
	it('version 1.1 sends the fingerprint; the output names the file as the user gave it, with and without waiting', async () => {
		const sent = await run(sb.env(), uploadParams(), [pdf('invoice-2024.pdf')], false, LATEST);
		const [created] = jsonOf(sent);
		expect(String(created.filename)).toMatch(/^invoice-2024\.ds-[0-9a-f]{12}\.pdf$/);
		expect(created.original_filename).toBe('invoice-2024.pdf');
		expect(nextToFilename(created)).toBe(true);

		const waited = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: FAST_WAIT }),
			[pdf('march.pdf')],
			false,
			LATEST,
		);
		expect(jsonOf(waited)[0]).toMatchObject({
			status: 'completed',
			original_filename: 'march.pdf',
		});
	});

	it('version 1 (no fingerprint): original_filename is the stored name', async () => {
		const sent = await run(sb.env(), uploadParams(), [pdf('plain.pdf')], false, 1);
		expect(jsonOf(sent)[0]).toMatchObject({
			filename: 'plain.pdf',
			original_filename: 'plain.pdf',
		});
	});
});

describe.each([
	['raw', (items: IDataObject[]) => items[0]],
	['fields', (items: IDataObject[]) => items[0]],
	['rows', (items: IDataObject[]) => items[0]],
] as const)('Get and Get Many, Output %s', (output, first) => {
	it('carry original_filename for a fingerprinted scan and for one stored without it', async () => {
		const [marked] = sb.get().control.seedScans({
			count: 1,
			template_id: 3,
			filename: 'Lieferung Müller.ds-1a7c7e426dbf.PDF',
		});
		const [plain] = sb.get().control.seedScans({ count: 1, template_id: 3, filename: 'old.pdf' });
		const options = { output };
		const get = await run(sb.env(), {
			resource: 'scan',
			operation: 'get',
			scanId: String(marked),
			options,
		});
		expect(first(jsonOf(get)).original_filename).toBe('Lieferung Müller.PDF');
		if (output !== 'rows') expect(nextToFilename(first(jsonOf(get)))).toBe(true);
		const many = await run(sb.env(), {
			resource: 'scan',
			operation: 'getAll',
			returnAll: true,
			options,
		});
		const byScan = new Map(jsonOf(many).map((item) => [item.scan_id ?? item.id, item]));
		expect(byScan.get(marked)?.original_filename).toBe('Lieferung Müller.PDF');
		expect(byScan.get(plain)?.original_filename).toBe('old.pdf');
		for (const item of jsonOf(many)) expect(typeof item.original_filename).toBe('string');
	});
});
