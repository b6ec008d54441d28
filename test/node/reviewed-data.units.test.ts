/**
 * Unit tests of the reviewed-data merge (nodes/shared/reviewedData.ts) for what the property
 * test's model leaves out: hostile shapes, the conflict on the extracted `rows` side, the
 * exact wording of a conflict, and what counts as a table.
 */
import type { IDataObject } from 'n8n-workflow';

import { isTable, mergeReviewedData } from '../../nodes/shared/reviewedData';

const rows = (...tags: string[]) => tags.map((tag) => ({ tag }));
const merge = (extracted: unknown, reviewed: unknown) =>
	mergeReviewedData({ extracted_data: extracted, reviewed_data: reviewed } as IDataObject);

describe('what counts as a table', () => {
	it('isTable: a non-empty list of objects only', () => {
		expect(isTable(rows('a'))).toBe(true);
		expect(isTable([])).toBe(false);
		expect(isTable([1])).toBe(false);
		expect(isTable([rows('a')])).toBe(false);
		expect(isTable([null])).toBe(false);
		expect(isTable('rows')).toBe(false);
		expect(isTable({ 0: { tag: 'a' } })).toBe(false);
	});
});

describe('hostile shapes', () => {
	it.each([
		['null', null],
		['a list', [{ a: 1 }]],
		['a string', 'x'],
		['a number', 3],
	])('extracted_data or reviewed_data that is %s counts as no fields', (_label, value) => {
		expect(merge(value, { a: 2 })).toEqual({ data: { a: 2 }, reviewedFields: ['a'] });
		expect(merge({ a: 1 }, value)).toEqual({ data: { a: 1 }, reviewedFields: [] });
	});

	it('a reviewed `rows` that is not a list crosses nothing: it is a reviewed value like any other', () => {
		expect(merge({ line_items: rows('e') }, { rows: null })).toEqual({
			data: { line_items: rows('e'), rows: null },
			reviewedFields: ['rows'],
		});
	});

	it('an extracted `rows` that is not a list takes no reviewed table from a field key', () => {
		expect(merge({ rows: 'none' }, { line_items: rows('r') })).toEqual({
			data: { rows: 'none', line_items: rows('r') },
			reviewedFields: ['line_items'],
		});
	});
});

describe('the extracted side under `rows`', () => {
	it('one reviewed table under a field key the extraction has no list for: it replaces the rows', () => {
		expect(merge({ rows: rows('e1', 'e2'), total: 1 }, { line_items: rows('r') })).toEqual({
			data: { rows: rows('r'), total: 1 },
			reviewedFields: ['rows'],
		});
	});

	it('a review that emptied the table under its field key empties the extracted rows', () => {
		expect(merge({ rows: rows('e') }, { line_items: [] }).data).toEqual({ rows: [] });
	});

	it('a reviewed table under a key the extraction also holds a list for stays there', () => {
		expect(merge({ rows: rows('e'), taxes: [] }, { taxes: rows('t') })).toEqual({
			data: { rows: rows('e'), taxes: rows('t') },
			reviewedFields: ['taxes'],
		});
	});

	it('a review that names `rows` too, whatever its value, crosses nothing', () => {
		expect(merge({ rows: rows('e') }, { rows: null, line_items: rows('r') }).data).toEqual({
			rows: null,
			line_items: rows('r'),
		});
	});

	it('two reviewed tables that could replace the extracted rows: both kept, the conflict named', () => {
		const merged = merge({ rows: rows('e') }, { line_items: rows('r'), taxes: rows('t') });
		expect(merged).toEqual({
			data: { rows: rows('e'), line_items: rows('r'), taxes: rows('t') },
			reviewedFields: ['line_items', 'taxes'],
			tableConflict:
				'extracted_data holds a table under "rows" and reviewed_data tables under "line_items" and "taxes": which one corrects it is not known, so all are kept as they are',
		});
	});
});

describe('the reviewed side under `rows`', () => {
	it('the conflict names every extracted table it could replace', () => {
		const merged = merge(
			{ line_items: rows('e'), taxes: [], note: 'x' },
			{ rows: rows('r'), note: 'y' },
		);
		expect(merged.tableConflict).toBe(
			'reviewed_data holds a table under "rows" and extracted_data tables under "line_items" and "taxes": which one the review corrects is not known, so all are kept as they are',
		);
		expect(merged.data).toEqual({ line_items: rows('e'), taxes: [], note: 'y', rows: rows('r') });
	});

	it('with no extracted table it is simply added under rows', () => {
		expect(merge({ total: 1 }, { rows: rows('r') })).toEqual({
			data: { total: 1, rows: rows('r') },
			reviewedFields: ['rows'],
		});
	});
});
