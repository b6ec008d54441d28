/**
 * Property-based tests (fast-check, fixed seeds) of the reviewed-table merge behind the shaped
 * outputs ("Extracted Fields", "One Item per Table Row") over every key combination the spec
 * allows: a template's tables under their field keys, the one table a service may put under
 * `rows` there on either side or both, several tables, empty tables, corrected or not.
 *
 * Model: a scan has 1-3 tables. The first may sit under `rows` on each side independently (the
 * table a service puts under `rows` is the same one on both sides); every other sits under its
 * own key. Rows carry a tag naming their side, table and index, so where each output row came
 * from is known. Properties:
 * - nothing is merged wrongly: every output table is one whole input table, each row once;
 * - no conflict: each corrected table appears as reviewed and none of its extracted rows, each
 *   other table as extracted, under the key the extracted side used;
 * - a conflict is named exactly when the data cannot tell which table the review corrects
 *   (the first table reviewed under `rows`, extracted under its key, another table not
 *   reviewed); then both sides of that table are kept whole, the other tables merge as
 *   always, and every record carries the reason;
 * - reviewed single values win, the others stay.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { runs } from '../support/property-runs';

import { mergeReviewedData } from '../../nodes/shared/reviewedData';
import { shapeScan } from '../../nodes/shared/scans/output';

const RUNS = runs(250507, 500);
const TABLE_KEYS = ['line_items', 'taxes', '__proto__'];

interface TableModel {
	key: string;
	extracted: IDataObject[];
	/** The corrected rows, when the table was reviewed. */
	reviewed?: IDataObject[];
}

interface ScanModel {
	tables: TableModel[];
	/** Where the first table sits on each side. */
	firstExtractedUnderRows: boolean;
	firstReviewedUnderRows: boolean;
	scalars: IDataObject;
	reviewedScalars: IDataObject;
}

const rowsOf = (side: 'E' | 'R', key: string, count: number): IDataObject[] =>
	Array.from({ length: count }, (_, index) => ({ tag: `${side}:${key}:${index}`, n: index }));

const scanModel: fc.Arbitrary<ScanModel> = fc
	.record({
		count: fc.integer({ min: 1, max: 3 }),
		sizes: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 3, maxLength: 3 }),
		reviewedSizes: fc.array(fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }), {
			minLength: 3,
			maxLength: 3,
		}),
		firstExtractedUnderRows: fc.boolean(),
		firstReviewedUnderRows: fc.boolean(),
		scalars: fc.dictionary(
			fc.constantFrom('invoice_number', 'total', 'due', '__proto__'),
			fc.integer(),
		),
		reviewedScalars: fc.dictionary(fc.constantFrom('invoice_number', 'total'), fc.integer()),
	})
	.map(({ count, sizes, reviewedSizes, scalars, reviewedScalars, ...sides }) => ({
		...sides,
		scalars,
		reviewedScalars,
		tables: TABLE_KEYS.slice(0, count).map((key, index) => ({
			key,
			extracted: rowsOf('E', key, sizes[index]),
			reviewed:
				reviewedSizes[index] === undefined ? undefined : rowsOf('R', key, reviewedSizes[index]),
		})),
	}));

function define(record: IDataObject, key: string, value: unknown): void {
	Object.defineProperty(record, key, {
		value,
		enumerable: true,
		writable: true,
		configurable: true,
	});
}

/** The scan record of a model: extracted_data and reviewed_data as a service may send them. */
function scanOf(model: ScanModel): IDataObject {
	const extracted: IDataObject = {};
	const reviewed: IDataObject = {};
	for (const [key, value] of Object.entries(model.scalars)) define(extracted, key, value);
	for (const [key, value] of Object.entries(model.reviewedScalars)) define(reviewed, key, value);
	model.tables.forEach((table, index) => {
		define(
			extracted,
			index === 0 && model.firstExtractedUnderRows ? 'rows' : table.key,
			table.extracted,
		);
		if (table.reviewed !== undefined) {
			define(
				reviewed,
				index === 0 && model.firstReviewedUnderRows ? 'rows' : table.key,
				table.reviewed,
			);
		}
	});
	return { id: 7, status: 'completed', extracted_data: extracted, reviewed_data: reviewed };
}

/** Whether the data leave open which table the review corrects. */
function ambiguous(model: ScanModel): boolean {
	const [first, ...others] = model.tables;
	return (
		first.reviewed !== undefined &&
		model.firstReviewedUnderRows &&
		!model.firstExtractedUnderRows &&
		others.some((table) => table.reviewed === undefined)
	);
}

const tagsOf = (rows: IDataObject[]) => rows.map((row) => row.tag);

/** An own field's value ("__proto__" included, which plain indexing would not read). */
const own = (record: IDataObject, key: string): unknown =>
	Object.getOwnPropertyDescriptor(record, key)?.value;

/** The output rows grouped by their `table`, in output order. */
function outputTables(records: IDataObject[]): Map<string, IDataObject[]> {
	const tables = new Map<string, IDataObject[]>();
	for (const record of records.filter((r) => typeof r.tag === 'string')) {
		const key = String(record.table);
		tables.set(key, [...(tables.get(key) ?? []), record]);
	}
	return tables;
}

describe('the reviewed-table merge over every key combination', () => {
	test('nothing is merged wrongly: every output table is one whole input table, each row once', () => {
		fc.assert(
			fc.property(scanModel, (model) => {
				const inputs = model.tables.flatMap((t) => [t.extracted, t.reviewed ?? []]);
				const records = shapeScan(scanOf(model), 'rows');
				const tags = records.map((r) => r.tag).filter((tag) => tag !== undefined);
				expect(new Set(tags).size).toBe(tags.length);
				for (const rows of outputTables(records).values()) {
					const whole = inputs.find(
						(input) =>
							input.length === rows.length &&
							JSON.stringify(tagsOf(input)) === JSON.stringify(tagsOf(rows)),
					);
					expect(whole).toBeDefined();
				}
			}),
			RUNS,
		);
	});

	test('without a conflict each corrected table replaces its extracted one, under the extracted key', () => {
		fc.assert(
			fc.property(
				scanModel.filter((model) => !ambiguous(model)),
				(model) => {
					const merged = mergeReviewedData(scanOf(model));
					expect(merged.tableConflict).toBeUndefined();
					model.tables.forEach((table, index) => {
						const key = index === 0 && model.firstExtractedUnderRows ? 'rows' : table.key;
						const expected = table.reviewed ?? table.extracted;
						expect(tagsOf(own(merged.data, key) as IDataObject[])).toEqual(tagsOf(expected));
						expect(merged.reviewedFields.includes(key)).toBe(table.reviewed !== undefined);
					});
					const records = shapeScan(scanOf(model), 'rows');
					const expectedTags = model.tables.flatMap((t) => tagsOf(t.reviewed ?? t.extracted));
					expect(tagsOf(records).filter(Boolean).sort()).toEqual([...expectedTags].sort());
					expect(records.every((record) => !('tableConflict' in record))).toBe(true);
				},
			),
			RUNS,
		);
	});

	test('a conflict is named exactly when the data leave it open; then both sides of that table are kept and every record says why', () => {
		fc.assert(
			fc.property(scanModel, (model) => {
				const scan = scanOf(model);
				const merged = mergeReviewedData(scan);
				expect(merged.tableConflict !== undefined).toBe(ambiguous(model));
				if (merged.tableConflict === undefined) return;
				const records = shapeScan(scan, 'rows');
				const [first, ...others] = model.tables;
				const everyRow = [
					...tagsOf(first.extracted),
					...tagsOf(first.reviewed ?? []),
					...others.flatMap((t) => tagsOf(t.reviewed ?? t.extracted)),
				];
				expect(tagsOf(records).filter(Boolean).sort()).toEqual([...everyRow].sort());
				for (const record of records) expect(record.tableConflict).toBe(merged.tableConflict);
				const [fields] = shapeScan(scan, 'fields');
				expect(fields.tableConflict).toBe(merged.tableConflict);
			}),
			RUNS,
		);
	});

	test('reviewed single values win, the others stay (a "__proto__" field is data)', () => {
		fc.assert(
			fc.property(scanModel, (model) => {
				const { data } = mergeReviewedData(scanOf(model));
				for (const [key, value] of Object.entries(model.scalars)) {
					const expected = Object.prototype.hasOwnProperty.call(model.reviewedScalars, key)
						? model.reviewedScalars[key]
						: value;
					if (!model.tables.some((t) => t.key === key)) {
						expect(own(data, key)).toBe(expected);
					}
				}
				expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
			}),
			RUNS,
		);
	});
});
