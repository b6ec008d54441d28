import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ScanOutputMode } from '../../shared/scans/output';
import { shapeScan } from '../../shared/scans/output';
import { mergeReviewedData } from '../../shared/reviewedData';
import { originalFileName } from '../../shared/scans/fileName';
import { isPlainObject } from '../../shared/transport';
import { runsAsTool, withoutSecrets } from './tool';

/** The answer's own fields: an extracted field of one of these names goes under `extracted_fields`. */
const OWN = ['validation_errors', 'not_shown', 'extracted_fields', 'error_message', 'is_partial'];

/** `value`, its strings cut to `chars` and lists at any depth to `rows` (`notShown` counts by path). */
function shorten(value: unknown, chars: number, rows: number, path: string, notShown: IDataObject) {
	const inner = (v: unknown, at: string): unknown => shorten(v, chars, rows, at, notShown);
	if (typeof value === 'string' && value.length > chars)
		return `${value.slice(0, chars)}… (${value.length - chars} more characters not shown)`;
	if (Array.isArray(value)) {
		if (value.length > rows) notShown[path] = Number(notShown[path] ?? 0) + value.length - rows;
		return value.slice(0, rows).map((entry, i) => inner(entry, `${path}[${i}]`));
	}
	if (!isPlainObject(value)) return value;
	const at = (key: string) => (path ? `${path}.${key}` : key);
	return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, inner(v, at(key))]));
}

/**
 * A scan as a model needs it: what it is and why it failed, then its fields with reviewed values
 * merged in, each list at any depth cut to `rows` entries (`not_shown` counts the rest by path).
 */
export function compactScan(scan: IDataObject, rows: number): IDataObject {
	const { data, reviewedFields } = mergeReviewedData(scan);
	const answer: IDataObject = {
		scan_id: scan.id ?? scan.scan_id ?? null,
		status: scan.status ?? null,
		original_filename: typeof scan.filename === 'string' ? originalFileName(scan.filename) : null,
		template_id: scan.template_id ?? null,
		created_at: scan.created_at ?? null,
		confidence: scan.confidence ?? null,
		...(scan.error_message ? { error_message: scan.error_message } : {}),
		...(scan.is_partial === true ? { is_partial: true } : {}),
		...(reviewedFields.length > 0 ? { reviewed_fields: reviewedFields } : {}),
	};
	const own = new Set([...Object.keys(answer), ...OWN]);
	const notShown: IDataObject = {};
	const moved: IDataObject = {};
	const lists = Array.isArray(scan.validation_errors) ? scan.validation_errors : [];
	for (const [key, value] of [...Object.entries(data), ['validation_errors', lists] as const]) {
		const extracted = key !== 'validation_errors' || value !== lists;
		const path = extracted && own.has(key) ? `extracted_fields.${key}` : key;
		const shown = shorten(value, Infinity, rows, path, notShown);
		if (Array.isArray(shown) && shown.length === 0) continue;
		(path === key ? answer : moved)[key] = shown as IDataObject;
	}
	if (Object.keys(moved).length > 0) answer.extracted_fields = moved;
	return Object.keys(notShown).length > 0 ? { ...answer, not_shown: notShown } : answer;
}

/** The bound of a tool's whole answer, in characters of its JSON, unless the builder set one. */
export const ANSWER_BOUND = 20_000;

/** Within `bound` characters: texts and lists ever shorter, then the last results left out (counted). */
export function boundAnswer(answers: IDataObject[], bound: number): IDataObject[] {
	const size = (value: unknown) => JSON.stringify(value).length;
	if (size(answers) <= bound) return answers;
	let cut: IDataObject[] = answers;
	for (const [step, chars] of [2000, 500, 100, 40, 20].entries()) {
		const rows = [10, 5, 2, 1, 0][step];
		cut = answers.map(({ not_shown: earlier, ...answer }) => {
			const notShown: IDataObject = isPlainObject(earlier) ? { ...earlier } : {};
			const json = shorten(answer, chars, rows, '', notShown) as IDataObject;
			return Object.keys(notShown).length > 0 ? { ...json, not_shown: notShown } : json;
		});
		if (size(cut) <= bound) return cut;
	}
	const kept: IDataObject[] = [];
	let total = 40; // the brackets and the last { not_shown: { results } }
	for (const answer of cut)
		if ((total += size(answer) + 1) <= bound) kept.push(answer);
		else break;
	const left = { not_shown: { results: cut.length - kept.length } };
	return kept.length < cut.length ? [...kept, left] : kept;
}

/** An item's scans as "Output" says; without it compact for a model (a tool), else raw. */
export function scanShape(
	ctx: IExecuteFunctions,
	options: IDataObject,
	itemIndex: number,
): (scan: IDataObject) => IDataObject[] {
	const mode = options.output as ScanOutputMode | undefined;
	if (mode !== undefined || !runsAsTool(ctx.getNode()))
		return (scan) => shapeScan(scan, mode ?? 'raw');
	const rows = ctx.getNodeParameter('operation', itemIndex) === 'get' ? 10 : 0; // entries of each list
	return (scan) => [compactScan(withoutSecrets(scan), rows)];
}
