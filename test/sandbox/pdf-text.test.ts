/**
 * Property-based tests (fast-check, fixed seeds) of the sandbox's PDF text reader and of the mapping
 * of text lines onto template fields: shifting layouts, odd text and hostile bytes.
 */
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';

import { documentData, readDocument, type DocumentFacts } from '../../sandbox/engine/document-data';
import { pdfTextLines } from '../../sandbox/engine/pdf-text';

const RUNS = { seed: 18_03, numRuns: 200 };

type Style = 'quote' | 'Tj' | 'TJ' | 'hex' | 'Tm';
interface Layout {
	style: Style;
	flate: boolean;
	wrongLength: boolean;
	/** A stream with another filter before the text (must be skipped). */
	imageFirst: boolean;
	split: number;
}

const escape = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);
const hex = (text: string) => Buffer.from(text, 'latin1').toString('hex');

/** A PDF showing `lines`, in one of several ways a writer may lay text out. */
function pdfOf(lines: string[], layout: Layout): Buffer {
	const show = (line: string, i: number): string => {
		switch (layout.style) {
			case 'quote':
				return `(${escape(line)}) '`;
			case 'Tj':
				return `${i === 0 ? '' : '0 -16 Td '}(${escape(line)}) Tj`;
			case 'TJ': {
				const at = Math.min(layout.split, line.length);
				return `T* [(${escape(line.slice(0, at))}) -120 (${escape(line.slice(at))})] TJ`;
			}
			case 'hex':
				return `T* <${hex(line)}> Tj`;
			case 'Tm':
				return `1 0 0 1 72 ${760 - 16 * i} Tm (${escape(line)}) Tj`;
		}
	};
	const content = Buffer.from(
		['BT', '/F1 12 Tf', '72 760 Td', '16 TL', ...lines.map(show), 'ET'].join('\n'),
		'latin1',
	);
	const data = layout.flate ? deflateSync(content) : content;
	const length = layout.wrongLength ? data.length + 7 : data.length;
	const filter = layout.flate ? ' /Filter /FlateDecode' : '';
	const parts: Buffer[] = [
		Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1'),
	];
	if (layout.imageFirst) {
		const junk = Buffer.from('BT (not text) Tj ET', 'latin1');
		parts.push(
			Buffer.from(
				`2 0 obj\n<< /Subtype /Image /Filter /DCTDecode /Length ${junk.length} >>\nstream\n`,
				'latin1',
			),
			junk,
			Buffer.from('\nendstream\nendobj\n'),
		);
	}
	parts.push(
		Buffer.from(`5 0 obj\n<< /Length ${length}${filter} >>\nstream\n`, 'latin1'),
		data,
		Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1'),
	);
	return Buffer.concat(parts);
}

const latin1Char = fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c));
/** Lines as the reader gives them back: no leading/trailing space, no runs of white space. */
const textLine = fc
	.string({ unit: latin1Char, minLength: 1, maxLength: 40 })
	.map((s) => s.replace(/\s+/g, ' ').trim())
	.filter((s) => s.length > 0);
const layout: fc.Arbitrary<Layout> = fc.record({
	style: fc.constantFrom<Style>('quote', 'Tj', 'TJ', 'hex', 'Tm'),
	flate: fc.boolean(),
	wrongLength: fc.boolean(),
	imageFirst: fc.boolean(),
	split: fc.nat(40),
});

describe('pdfTextLines', () => {
	test('reads back every line, whatever the text and however the PDF lays it out', () => {
		fc.assert(
			fc.property(fc.array(textLine, { minLength: 1, maxLength: 12 }), layout, (lines, how) => {
				expect(pdfTextLines(pdfOf(lines, how))).toEqual(lines);
			}),
			RUNS,
		);
	});

	test('a PDF cut short anywhere gives all of its lines or none, never part of them', () => {
		fc.assert(
			fc.property(
				fc.array(textLine, { minLength: 1, maxLength: 6 }),
				layout,
				fc.double({ min: 0, max: 1, noNaN: true }),
				(lines, how, where) => {
					const pdf = pdfOf(lines, { ...how, wrongLength: false });
					const read = pdfTextLines(pdf.subarray(0, Math.floor(pdf.length * where)));
					if (read !== undefined) expect(read).toEqual(lines);
				},
			),
			RUNS,
		);
	});

	test('hostile bytes never throw and give bounded output', () => {
		const hostile = fc.oneof(
			fc
				.uint8Array({ maxLength: 2000 })
				.map((b) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(b)])),
			fc
				.array(
					fc.constantFrom(
						'<<',
						'>>',
						'stream\n',
						'endstream',
						'/Length 3',
						'/Filter /FlateDecode',
						'BT',
						'ET',
						'(',
						')',
						'\\',
						'[',
						']',
						'Tj',
						"'",
						'TJ',
						'<4',
						'>',
						' ',
						'\n',
						'x',
					),
					{ maxLength: 300 },
				)
				.map((parts) => Buffer.from(`%PDF-1.4\n${parts.join('')}`, 'latin1')),
		);
		fc.assert(
			fc.property(hostile, (pdf) => {
				const read = pdfTextLines(pdf);
				if (read === undefined) return;
				expect(read.length).toBeGreaterThan(0);
				expect(read.length).toBeLessThanOrEqual(500);
				for (const line of read) expect(line.length).toBeLessThanOrEqual(1000);
			}),
			{ ...RUNS, numRuns: 500 },
		);
	});

	test('no PDF header, an inflate bomb and a non-PDF give no lines', () => {
		expect(pdfTextLines(Buffer.from('BT (hello) Tj ET'))).toBeUndefined();
		const bomb = deflateSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
		const pdf = Buffer.concat([
			Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Length ${bomb.length} /Filter /FlateDecode >>\nstream\n`),
			bomb,
			Buffer.from('\nendstream\nendobj\n'),
		]);
		expect(pdfTextLines(pdf)).toBeUndefined();
	});
});

describe('readDocument', () => {
	const word = fc.stringMatching(/^[A-Za-z][a-z0-9-]{0,9}$/);
	const name = fc
		.array(word, { minLength: 1, maxLength: 4 })
		.map((w) => w.join(' '))
		.filter((s) => !/^(invoice|date|currency|total|amount)\b/i.test(s) && !/^\d/.test(s));
	const cents = fc.integer({ min: 0, max: 99_999_99 });
	const item = fc.record({
		quantity: fc.integer({ min: 1, max: 999 }),
		unit: fc.constantFrom('x', 'h', 'kg', 'm'),
		description: name,
		amount: cents.map((c) => c / 100),
	});
	const facts = fc.record({
		supplier: name,
		invoiceNumber: fc.stringMatching(/^[A-Z0-9][A-Z0-9-]{0,11}$/),
		date: fc
			.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
			.map((d) => d.toISOString().slice(0, 10)),
		currency: fc.constantFrom('EUR', 'USD', 'CHF'),
		total: fc.option(
			cents.map((c) => c / 100),
			{ nil: null },
		),
		items: fc.array(item, { minLength: 1, maxLength: 8 }),
	});
	const gap = fc.stringMatching(/^ {1,6}$/);

	test('recovers the facts whatever the order of the labelled lines and the spacing', () => {
		fc.assert(
			fc.property(
				facts,
				fc.array(gap, { minLength: 12, maxLength: 12 }),
				fc.boolean(),
				(f, gaps, shout) => {
					const label = (l: string) => (shout ? l.toUpperCase() : l);
					const labelled = [
						`${label('Invoice')}${gaps[0]}${f.invoiceNumber}`,
						`${label('Date')}:${gaps[1]}${f.date}`,
						`${label('Currency')}${gaps[2]}${f.currency}`,
					];
					// Shift the labelled lines around the items; the supplier stays first.
					const rotate = gaps[3].length % 3;
					const lines = [
						f.supplier,
						...labelled.slice(rotate),
						...f.items.map(
							(it, i) =>
								`${it.quantity}${gaps[4 + (i % 4)]}${it.unit} ${it.description}${gaps[8 + (i % 4)]}${it.amount.toFixed(2)}`,
						),
						...labelled.slice(0, rotate),
						...(f.total === null ? [] : [`${label('Total')}${gaps[5]}${f.total.toFixed(2)}`]),
					];
					const read = readDocument(lines)!;
					expect(read).toEqual({
						...f,
						supplier: f.supplier.replace(/\s+/g, ' '),
						items: f.items.map((it) => ({ ...it, unit: it.unit === 'x' ? 'pcs' : it.unit })),
					});
					const data = documentData('mixed', read) as {
						total_amount: number;
						line_items: unknown[];
					};
					expect(data.line_items).toHaveLength(f.items.length);
					const sum = Math.round(f.items.reduce((s, it) => s + it.amount, 0) * 100) / 100;
					expect(data.total_amount).toBe(f.total ?? sum);
				},
			),
			RUNS,
		);
	});

	test('odd and hostile lines never throw; without a line item there is nothing read', () => {
		fc.assert(
			fc.property(
				fc.array(fc.string({ unit: latin1Char, maxLength: 200 }), { maxLength: 30 }),
				(lines) => {
					const read: DocumentFacts | undefined = readDocument(lines);
					if (read === undefined) return;
					expect(read.items.length).toBeGreaterThan(0);
					for (const it of read.items) {
						expect(Number.isFinite(it.quantity) && Number.isFinite(it.amount)).toBe(true);
						expect(it.description.trim()).not.toBe('');
					}
				},
			),
			{ ...RUNS, numRuns: 500 },
		);
		expect(readDocument(['Globex Hardware', 'Invoice 1002', 'Total 29.85'])).toBeUndefined();
	});
});
