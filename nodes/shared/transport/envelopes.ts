import type { IDataObject } from 'n8n-workflow';

/** Response shapes the spec leaves open (see "Where the spec says 'not shown'" in the README). */

export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a body is JSON (or empty), not a page: `unwrapRecord` keeps a page as its `message`. */
export const isJsonBody = (body: unknown) => unwrapRecord(body).message !== body;

/** A single record comes bare or as `{ data: {...} }`. */
export function unwrapRecord(body: unknown): IDataObject {
	if (isPlainObject(body))
		return isPlainObject(body.data) && body.id === undefined ? body.data : body;
	if (typeof body === 'string' && body.trim() !== '') {
		try {
			return unwrapRecord(JSON.parse(body));
		} catch {
			return { message: body };
		}
	}
	return {};
}

export interface ListPage {
	items: IDataObject[];
	meta?: IDataObject;
	links?: IDataObject;
}

/**
 * A collection comes as a bare array or as `{ data: [...] }`, possibly with `meta` / `links`, or
 * as an object whose one array is the list.
 */
export function unwrapList(body: unknown): ListPage {
	if (Array.isArray(body)) return { items: body as IDataObject[] };
	if (typeof body === 'string' && isJsonBody(body) && body.trim())
		return unwrapList(JSON.parse(body));
	if (isPlainObject(body)) {
		const inner = body.data;
		if (Array.isArray(inner))
			return {
				items: inner as IDataObject[],
				meta: isPlainObject(body.meta) ? body.meta : undefined,
				links: isPlainObject(body.links) ? body.links : undefined,
			};
		// `{ data: { data: [...] } }` or `{ data: [...], ... }` nested once more.
		if (isPlainObject(inner)) return unwrapList(inner);
		// Another name for the list (`{ "webhooks": [...] }`): the one array in the object.
		const arrays = Object.entries(body).filter(([, value]) => Array.isArray(value));
		if (arrays.length === 1) return { items: arrays[0][1] as IDataObject[] };
		if (arrays.length > 1)
			throw new Error(
				`The service answered with several lists (${arrays.map(([key]) => key).join(', ')}) and none named "data": which one holds the records cannot be told`,
			);
	}
	return { items: [] };
}
