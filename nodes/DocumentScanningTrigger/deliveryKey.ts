import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../shared/transport';

/**
 * The key of a delivery: its result, not its bytes. `<event>:<scan ID>:<digest>` when the body
 * names its scan (scanId.ts), the digest over `data` without its time fields (`timestamp`,
 * `*_at`) and the ID; else `sha256:<digest>` of the body without time fields (its and `data`'s).
 * A digest is 16 hex digits of the SHA-256 of canonical JSON (keys sorted, no spacing) of the
 * values as JSON.parse reads them. The same result resent, signed anew or restamped keeps its
 * key; a new result of the scan gets a new one. Nothing secret is in it.
 */

const TIME_FIELD = /^timestamp$|_at$/;
const TIME_OR_ID = /^timestamp$|_at$|^(scan_)?id$/;

/** Text written as it is, between the values of `canonical`. */
class Text {
	constructor(readonly text: string) {}
}

/**
 * JSON with object keys sorted and no spacing, built with an explicit stack: a body nested
 * 10,000 levels deep costs memory, never call-stack depth.
 */
function canonical(root: unknown): string {
	let out = '';
	const stack: unknown[] = [root];
	while (stack.length > 0) {
		const value = stack.pop();
		if (value instanceof Text) {
			out += value.text;
		} else if (Array.isArray(value) || isPlainObject(value)) {
			const keys = Array.isArray(value) ? undefined : Object.keys(value).sort();
			const values =
				keys === undefined ? (value as unknown[]) : keys.map((key) => (value as IDataObject)[key]);
			out += keys === undefined ? '[' : '{';
			stack.push(new Text(keys === undefined ? ']' : '}'));
			for (let i = values.length - 1; i >= 0; i--) {
				stack.push(values[i]);
				if (keys !== undefined) stack.push(new Text(`${JSON.stringify(keys[i])}:`));
				if (i > 0) stack.push(new Text(','));
			}
		} else {
			out += JSON.stringify(value) ?? 'null';
		}
	}
	return out;
}

const without = (record: IDataObject, left: RegExp): IDataObject =>
	Object.fromEntries(Object.entries(record).filter(([key]) => !left.test(key)));

const digest = (value: unknown): string =>
	createHash('sha256').update(canonical(value)).digest('hex').slice(0, 16);

export function deliveryKey(event: string, body: IDataObject, scanId: string | undefined): string {
	const data = isPlainObject(body.data) ? body.data : undefined;
	if (scanId !== undefined && data)
		return `${event}:${scanId}:${digest(without(data, TIME_OR_ID))}`;
	const timeless = without(body, TIME_FIELD);
	return `sha256:${digest(data ? { ...timeless, data: without(data, TIME_FIELD) } : timeless)}`;
}
