import type { IDataObject } from 'n8n-workflow';

/** Response shapes the spec leaves open (see "Where the spec says 'not shown'" in the README). */

export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a body is JSON (or empty): not a web server's or a proxy's page. */
export function isJsonBody(body: unknown): boolean {
	try {
		return typeof body !== 'string' || body.trim() === '' || JSON.parse(body) !== undefined;
	} catch {
		return false;
	}
}

/** A single record comes bare or as `{ data: {...} }`. */
export function unwrapRecord(body: unknown): IDataObject {
	if (isPlainObject(body)) {
		if (isPlainObject(body.data) && body.id === undefined) return body.data;
		return body;
	}
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

/** A collection (parsed: request.ts `jsonBody`) comes as a bare array or as `{ data: [...] }`, possibly with `meta` / `links`. */
export function unwrapList(body: unknown): ListPage {
	if (Array.isArray(body)) return { items: body as IDataObject[] };
	if (isPlainObject(body)) {
		const inner = body.data;
		if (Array.isArray(inner)) {
			return {
				items: inner as IDataObject[],
				meta: isPlainObject(body.meta) ? body.meta : undefined,
				links: isPlainObject(body.links) ? body.links : undefined,
			};
		}
		// `{ data: { data: [...] } }` or `{ data: [...], ... }` nested once more.
		if (isPlainObject(inner)) return unwrapList(inner);
	}
	return { items: [] };
}
