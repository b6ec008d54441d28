/**
 * A binary entry that is not what n8n writes (e.g. built by a Code node): `data` not a
 * string, or the entry not an object. Refused with the item and field named, before any
 * request, instead of a raw TypeError.
 */
import type { IDataObject } from 'n8n-workflow';

import { jsonOf, pairedOf, rl, run, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();

const upload = {
	resource: 'scan',
	operation: 'upload',
	templateId: rl(1),
	binaryPropertyName: 'data',
};

const withEntry = (entry: unknown) =>
	({ json: {}, binary: { data: entry } }) as unknown as ReturnType<typeof binaryItem>;
const pdfEntry = (extra: IDataObject) => ({
	mimeType: 'application/pdf',
	fileName: 'a.pdf',
	...extra,
});

const cases: Array<[string, unknown, RegExp]> = [
	['data is a number', pdfEntry({ data: 12345 }), /its "data" is a number, not base64 text/],
	[
		'data is an object',
		pdfEntry({ data: { type: 'Buffer', data: [37, 80, 68, 70] } }),
		/its "data" is an object, not base64 text/,
	],
	['data is null', pdfEntry({ data: null }), /its "data" is null, not base64 text/],
	['data is missing', pdfEntry({}), /its "data" is missing/],
	['the entry is a string', 'JVBERi0xLjQ=', /is a string, not a binary entry/],
	['the entry is null', null, /is null, not a binary entry/],
	[
		'fileName is a number',
		pdfEntry({ data: pdfBytes().toString('base64'), fileName: 42 }),
		/its "fileName" is a number, not text/,
	],
	[
		'mimeType is an object',
		pdfEntry({ data: pdfBytes().toString('base64'), mimeType: {} }),
		/its "mimeType" is an object, not text/,
	],
];

describe('malformed binary entry', () => {
	test.each(cases)(
		'%s: a clear error naming the item and the field, and nothing is sent',
		async (_label, entry, message) => {
			const result = await run(sb.env(), upload, [withEntry(entry)]);
			expect(result.error?.message).toMatch(
				/^Item 0: the binary property "data" \(field "Input Binary Field"\) is malformed: /,
			);
			expect(result.error?.message).toMatch(message);
			expect(result.error?.message).not.toMatch(/TypeError|must be of type/);
			expect(result.error?.description).toMatch(/no scan credit was used/);
			expect(sb.get().control.requests()).toEqual([]);
		},
	);

	test('with Continue On Fail the malformed item yields one error item and the others upload', async () => {
		const good = binaryItem(pdfBytes(), 'good.pdf', 'application/pdf');
		const result = await run(sb.env(), upload, [withEntry(pdfEntry({ data: 7 })), good], true);
		expect(result.error).toBeUndefined();
		expect(pairedOf(result)).toEqual([0, 1]);
		const [bad, ok] = jsonOf(result);
		expect(String(bad.error)).toMatch(/^Item 0: the binary property "data" .* is malformed/);
		expect(ok.status).toBe('uploaded');
		expect(
			sb
				.get()
				.control.requests()
				.filter((r) => r.method === 'POST'),
		).toHaveLength(1);
	});
});
