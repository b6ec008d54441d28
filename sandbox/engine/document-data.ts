/**
 * extracted_data from what a document says: labelled values and line items in its text lines
 * (pdf-text.ts), mapped onto the template's fields. Used for PDFs with readable text such as the
 * sample invoices of `npm start`; any other file gets invented data (extract.ts).
 *
 * Recognised lines (case-insensitive, `:` after a label optional):
 *   the first other line            supplier / merchant name
 *   Invoice [no.|number|#] 1002     invoice_number "1002"
 *   [Invoice] Date 2024-05-14       invoice_date (ISO dates only)
 *   Currency EUR                    currency
 *   Total [EUR] 29.85 [EUR]         total_amount (else the sum of the line items)
 *   3 x USB-C cable 29.85           a line item: quantity, unit (x = pcs, or h, m, kg, ...), description, amount
 */
import { ExtractionMode } from '../types';

export interface DocumentItem {
	quantity: number;
	unit: string;
	description: string;
	amount: number;
}

export interface DocumentFacts {
	supplier: string | null;
	invoiceNumber: string | null;
	date: string | null;
	currency: string | null;
	total: number | null;
	items: DocumentItem[];
}

const AMOUNT = String.raw`-?\d{1,9}(?:[.,]\d{1,2})?`;
const ITEM = new RegExp(
	String.raw`^(\d{1,6}(?:[.,]\d{1,3})?)\s*(x|h|pcs|pc|m|kg|l|pack|pair|roll)\s+(.*\S)\s+(${AMOUNT})$`,
	'i',
);
const INVOICE = /^invoice(?:\s+(?:no\.?|number|#))?\s*[:#]?\s+([A-Za-z0-9][A-Za-z0-9/_.-]{0,40})$/i;
const DATE = /^(?:invoice\s+)?date\s*:?\s+(\d{4}-\d{2}-\d{2})$/i;
const CURRENCY = /^currency\s*:?\s+([A-Z]{3})$/i;
const TOTAL = new RegExp(
	String.raw`^(?:total|amount due)\s*:?\s+(?:([A-Z]{3})\s+)?(${AMOUNT})(?:\s+([A-Z]{3}))?$`,
	'i',
);

const number = (text: string): number => Number(text.replace(',', '.'));
const money = (value: number): number => Math.round(value * 100) / 100;

/** The facts of a document's text lines, or undefined when it lists no line item. */
export function readDocument(lines: readonly string[]): DocumentFacts | undefined {
	const facts: DocumentFacts = {
		supplier: null,
		invoiceNumber: null,
		date: null,
		currency: null,
		total: null,
		items: [],
	};
	for (const raw of lines) {
		const line = raw.replace(/\s+/g, ' ').trim();
		let m: RegExpExecArray | null;
		if ((m = TOTAL.exec(line))) {
			facts.total ??= money(number(m[2]));
			facts.currency ??= (m[1] ?? m[3])?.toUpperCase() ?? null;
		} else if ((m = DATE.exec(line))) facts.date ??= m[1];
		else if ((m = CURRENCY.exec(line))) facts.currency ??= m[1].toUpperCase();
		else if ((m = INVOICE.exec(line))) facts.invoiceNumber ??= m[1];
		else if ((m = ITEM.exec(line))) {
			const unit = m[2].toLowerCase();
			facts.items.push({
				quantity: number(m[1]),
				unit: unit === 'x' ? 'pcs' : unit,
				description: m[3],
				amount: money(number(m[4])),
			});
		} else if (line) facts.supplier ??= line;
	}
	return facts.items.length > 0 ? facts : undefined;
}

function rows(facts: DocumentFacts): Array<Record<string, unknown>> {
	return facts.items.map((item, i) => ({
		position: i + 1,
		article_number: null, // not on the document
		description: item.description,
		quantity: item.quantity,
		unit: item.unit,
		unit_price: item.quantity > 0 ? money(item.amount / item.quantity) : item.amount,
	}));
}

function total(facts: DocumentFacts): number {
	return facts.total ?? money(facts.items.reduce((sum, item) => sum + item.amount, 0));
}

function invoiceFields(facts: DocumentFacts): Record<string, unknown> {
	return {
		invoice_number: facts.invoiceNumber,
		invoice_date: facts.date,
		supplier_name: facts.supplier,
		total_amount: total(facts),
		currency: facts.currency,
	};
}

/** extracted_data for the template's extraction mode; fields the document does not state are null. */
export function documentData(mode: ExtractionMode, facts: DocumentFacts): Record<string, unknown> {
	switch (mode) {
		case 'scalar':
			return invoiceFields(facts);
		case 'tabular':
			return { rows: rows(facts) };
		case 'mixed':
			return { ...invoiceFields(facts), line_items: rows(facts) };
		case 'vision':
			return {
				document_type: 'invoice',
				merchant: facts.supplier,
				total: total(facts),
				date: facts.date,
			};
	}
}
