/**
 * Deterministic fake extraction results. The same seed (derived from file name and content hash)
 * always gives the same data, so tests can compare results across runs.
 */
import { createHash } from 'node:crypto';
import { ValidationIssue } from './records';
import { ExtractionMode } from '../types';

type Rng = () => number;

/** mulberry32 seeded from the first 32 bits of a hex digest. */
function rngFrom(seedHex: string): Rng {
	let state = parseInt(seedHex.slice(0, 8), 16) >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const int = (rng: Rng, min: number, max: number): number =>
	min + Math.floor(rng() * (max - min + 1));
const pick = <T>(rng: Rng, items: readonly T[]): T => items[int(rng, 0, items.length - 1)];
const money = (value: number): number => Math.round(value * 100) / 100;
const pad = (n: number, width: number): string => String(n).padStart(width, '0');
const date = (rng: Rng): string => `2024-${pad(int(rng, 1, 12), 2)}-${pad(int(rng, 1, 28), 2)}`;

const SUPPLIERS = [
	'Nordwind Bürobedarf GmbH',
	'Acme Office Supplies Ltd',
	'Blue River Logistics',
	'Kessler & Söhne KG',
	'Atlas Industrial Parts',
] as const;

const ARTICLES = [
	{ description: 'Printer paper A4, 500 sheets', unit: 'pack', price: 4.99 },
	{ description: 'Ballpoint pen, blue', unit: 'pcs', price: 0.89 },
	{ description: 'Hex bolt M8 x 40', unit: 'pcs', price: 0.12 },
	{ description: 'Pallet wrap film 500 mm', unit: 'roll', price: 12.5 },
	{ description: 'Safety gloves, size 9', unit: 'pair', price: 3.2 },
	{ description: 'Copper cable 3 x 1.5 mm²', unit: 'm', price: 1.75 },
] as const;

const MERCHANTS = ['Corner Café', 'City Fuel Station', 'Green Market', 'Hotel Central'] as const;

const FAILURE_REASONS = [
	'The document could not be read: the file appears to be corrupt or unreadable.',
	'No text could be recognised on the document.',
	'The document does not match the template.',
] as const;

/** Seed for one scan: sha256 over file name and content hash. */
export function extractionSeed(filename: string, contentSha256: string): string {
	return createHash('sha256').update(`${filename}\u0000${contentSha256}`).digest('hex');
}

function tableRows(rng: Rng): Array<Record<string, unknown>> {
	const count = int(rng, 2, 5);
	return Array.from({ length: count }, (_, i) => {
		const article = pick(rng, ARTICLES);
		return {
			position: i + 1,
			article_number: `ART-${pad(int(rng, 1, 99999), 5)}`,
			description: article.description,
			quantity: int(rng, 1, 50),
			unit: article.unit,
			unit_price: article.price,
		};
	});
}

function invoiceFields(rng: Rng, totalAmount: number): Record<string, unknown> {
	return {
		invoice_number: `INV-2024-${pad(int(rng, 1, 99999), 5)}`,
		invoice_date: date(rng),
		supplier_name: pick(rng, SUPPLIERS),
		total_amount: totalAmount,
		currency: 'EUR',
	};
}

function sumOfRows(rows: Array<Record<string, unknown>>): number {
	return money(rows.reduce((sum, r) => sum + (r.quantity as number) * (r.unit_price as number), 0));
}

/** extracted_data following the template's extraction mode. */
export function extractData(mode: ExtractionMode, seedHex: string): Record<string, unknown> {
	const rng = rngFrom(seedHex);
	switch (mode) {
		case 'scalar':
			return invoiceFields(rng, money(int(rng, 1000, 500000) / 100));
		case 'tabular':
			return { rows: tableRows(rng) };
		case 'mixed': {
			const lineItems = tableRows(rng);
			return { ...invoiceFields(rng, sumOfRows(lineItems)), line_items: lineItems };
		}
		case 'vision':
			return {
				document_type: 'receipt',
				merchant: pick(rng, MERCHANTS),
				total: money(int(rng, 150, 25000) / 100),
				date: date(rng),
			};
	}
}

/**
 * Makes the data violate one rule and returns the matching validation_errors.
 * The violated field is present in extracted_data (set to null or an out-of-range value).
 */
export function violateRule(
	mode: ExtractionMode,
	data: Record<string, unknown>,
): ValidationIssue[] {
	switch (mode) {
		case 'scalar':
			data.invoice_number = null;
			return [
				{
					field: 'invoice_number',
					rule: 'required',
					message: 'The field invoice_number is required but was not found.',
				},
			];
		case 'vision':
			data.total = null;
			return [
				{
					field: 'total',
					rule: 'required',
					message: 'The field total is required but was not found.',
				},
			];
		case 'tabular':
		case 'mixed': {
			const key = mode === 'tabular' ? 'rows' : 'line_items';
			const rows = data[key] as Array<Record<string, unknown>>;
			rows[0].quantity = 0;
			return [
				{
					field: `${key}.0.quantity`,
					rule: 'min',
					message: `The field ${key}.0.quantity must be at least 1.`,
				},
			];
		}
	}
}

/** 85-99 for completed, 40-79 for validation_failed. */
export function confidenceFor(outcome: 'completed' | 'validation_failed', seedHex: string): number {
	const rng = rngFrom(seedHex.slice(8));
	return outcome === 'completed' ? int(rng, 85, 99) : int(rng, 40, 79);
}

export function failureReason(seedHex: string): string {
	return pick(rngFrom(seedHex.slice(16)), FAILURE_REASONS);
}
