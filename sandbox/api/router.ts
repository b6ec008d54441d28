/** Minimal method + path router shared by the API and the control surface. */

export interface Route<H> {
	method: string;
	pattern: RegExp;
	handler: H;
}

export type RouteMatch<H> =
	| { kind: 'found'; handler: H; params: string[] }
	| { kind: 'not_found' }
	| { kind: 'method_not_allowed'; allow: string[] };

/** `route('GET', '/scans/:id', h)`: each `:name` segment matches one path segment and becomes a param. */
export function route<H>(method: string, template: string, handler: H): Route<H> {
	const source = template
		.split('/')
		.map((segment) =>
			segment.startsWith(':') ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
		)
		.join('/');
	return { method, pattern: new RegExp(`^${source}$`), handler };
}

function safeDecode(segment: string): string {
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

export function matchRoute<H>(
	routes: ReadonlyArray<Route<H>>,
	method: string,
	path: string,
): RouteMatch<H> {
	const allow: string[] = [];
	for (const r of routes) {
		const m = r.pattern.exec(path);
		if (!m) continue;
		if (r.method === method)
			return { kind: 'found', handler: r.handler, params: m.slice(1).map(safeDecode) };
		allow.push(r.method);
	}
	return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
}
