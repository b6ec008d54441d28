/**
 * Answers rewritten within what the API documentation leaves open: the "front server" of a real
 * deployment (a framework's Post/Redirect/Get, a proxy's HTML page, a serializer that drops or
 * retypes a field) folded into the sandbox as settings. One table, each row citing the line of
 * the documentation that leaves it open (its "not shown" list, or a rule that stops short), so a
 * new line there is a new row here; the invariant generator (test/invariants/worlds.ts) draws
 * its worlds' rewrites from these rows, so a new row is a new case. docs/sandbox.md shows it.
 *
 * Set with `control.setRewrites([{ rule, value, method?, path?, after?, times? }])`; cleared by
 * `reset`. A rewrite applies to the answer after the service acted (an upload is stored and
 * charged before its 201 becomes a 302).
 */
import type { ApiResponse } from '../api/http';

export type RewriteRule =
	'createdStatus' | 'unpromisedFields' | 'listOrder' | 'body' | 'redirectAfter' | 'redirectBefore';

export interface RewriteRow {
	rule: RewriteRule;
	/** The documentation's line that leaves it open (document-scanning-api.md). */
	cites: string;
	values: readonly string[];
	/** Requests it may apply to (method and a path pattern after /api/v1), for the generator. */
	targets: ReadonlyArray<{ method: string; path: string }>;
	plays: string;
}

const ANY_API = [
	{ method: 'POST', path: '^/scans$' },
	{ method: 'GET', path: '^/scans$' },
	{ method: 'GET', path: '^/scans/\\d+$' },
	{ method: 'GET', path: '^/account$' },
	{ method: 'GET', path: '^/templates$' },
	{ method: 'GET', path: '^/webhooks$' },
	{ method: 'POST', path: '^/webhooks$' },
	{ method: 'DELETE', path: '^/webhooks/\\d+$' },
];

export const REWRITES: readonly RewriteRow[] = [
	{
		rule: 'createdStatus',
		cites: 'Success status codes other than 201 for POST /scans: not shown.',
		values: ['200', '202', '204', '301', '302', '303', '307', '308'],
		targets: [{ method: 'POST', path: '^/scans$' }],
		plays:
			'a stored upload answered with another 2xx (204 without a body), or a 30x whose Location is the created scan (Post/Redirect/Get)',
	},
	{
		rule: 'unpromisedFields',
		cites:
			'The creation response (201) of POST /scans carries only: id, status, template_id, filename, created_at. / Response envelope of GET /scans: not shown. / Fields of the webhook record as returned by the API: not shown.',
		values: ['missing', 'null', 'text', 'number', 'list', 'object'],
		targets: [
			{ method: 'GET', path: '^/scans$' },
			{ method: 'POST', path: '^/scans$' },
			{ method: 'GET', path: '^/webhooks$' },
		],
		plays:
			'every field a record does not promise (listed scans beyond id, status, filename, template_id and the times; the creation object beyond its five; webhook records beyond id, name, url, events and the active flag) missing, null, or of another JSON type',
	},
	{
		rule: 'listOrder',
		cites:
			'Types of name, url and events, and the response shapes of all webhook endpoints: not shown. / Fields of a webhook log entry: not shown.',
		values: ['reversed', 'rotated'],
		targets: [
			{ method: 'GET', path: '^/webhooks$' },
			{ method: 'GET', path: '^/webhooks/\\d+/logs$' },
			{ method: 'GET', path: '^/templates$' },
		],
		plays:
			'lists whose order the documentation does not fix (webhooks, their logs, templates) in another order',
	},
	{
		rule: 'body',
		cites: 'Clients should send `Accept: application/json` so that errors also come back as JSON.',
		values: ['html', 'empty'],
		targets: ANY_API,
		plays:
			'an HTML page or an empty body instead of JSON, on the status the service gave (after it acted)',
	},
	{
		rule: 'redirectAfter',
		cites:
			'Success status codes other than 201 for POST /scans: not shown. (no rule excludes a redirect on any other request)',
		values: ['301', '302', '303', '307', '308'],
		targets: ANY_API,
		plays:
			'a redirect after the service acted: to the created scan for an upload, else to the same address',
	},
	{
		rule: 'redirectBefore',
		cites:
			'Success status codes other than 201 for POST /scans: not shown. (no rule excludes a redirect on any other request)',
		values: ['301', '302', '303', '307', '308'],
		targets: ANY_API,
		plays: 'a redirect before the service acted (a moved address), to the same address',
	},
];

export interface RewriteSetting {
	rule: RewriteRule;
	value: string;
	/** Method to match (any when omitted). */
	method?: string;
	/** Regex source on the path after /api/v1 (any when omitted). */
	path?: string;
	/** Matching answers left alone first. Default 0. */
	after?: number;
	/** Matching answers rewritten. Default: all. */
	times?: number;
}

/** Fields each kind of record promises; every other field is open. */
const PROMISED: Record<string, readonly string[]> = {
	listedScan: ['id', 'status', 'filename', 'template_id', 'created_at', 'updated_at'],
	createdScan: ['id', 'status', 'template_id', 'filename', 'created_at'],
	webhook: ['id', 'name', 'url', 'events', 'is_active', 'active', 'status', 'secret'],
};

/** A value of another JSON type; a value already of that type stays as it is. */
const OTHER_TYPE: Record<string, (value: unknown) => unknown> = {
	null: () => null,
	text: (value) => (typeof value === 'string' ? value : JSON.stringify(value ?? 'x')),
	number: (value) => (typeof value === 'number' ? value : 7),
	list: (value) => (Array.isArray(value) ? value : [value]),
	object: (value) =>
		typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { value },
};

interface Stored extends RewriteSetting {
	pattern?: RegExp;
	skip: number;
	left: number;
}

export interface Answered {
	method: string;
	path: string;
	search: string;
	/** The scan an upload created (its answer may say otherwise). */
	scanId?: number;
	/** The API's base, e.g. http://127.0.0.1:4000/api/v1 */
	base: string;
}

export class Rewriter {
	private settings: Stored[] = [];

	set(list: RewriteSetting[]): void {
		this.settings = list.map((setting) => {
			const row = REWRITES.find((r) => r.rule === setting.rule);
			if (!row) throw new Error(`rule must be one of ${REWRITES.map((r) => r.rule).join(', ')}`);
			if (!row.values.includes(setting.value))
				throw new Error(`${setting.rule}'s value must be one of ${row.values.join(', ')}`);
			return {
				...setting,
				pattern: setting.path === undefined ? undefined : new RegExp(setting.path),
				skip: setting.after ?? 0,
				left: setting.times ?? Infinity,
			};
		});
	}

	clear(): void {
		this.settings = [];
	}

	/** A redirect before the service acts, when one is due for this request. */
	before(request: Answered): ApiResponse | undefined {
		const due = this.take(request, 0, (s) => s.rule === 'redirectBefore');
		if (!due) return undefined;
		return redirect(Number(due.value), `${request.base}${request.path}${request.search}`);
	}

	/** The answer as the front server sends it, after the service acted. */
	after(request: Answered, response: ApiResponse): ApiResponse {
		let out = response;
		for (const rule of [
			'unpromisedFields',
			'listOrder',
			'createdStatus',
			'redirectAfter',
			'body',
		]) {
			const due = this.take(request, out.status, (s) => s.rule === rule);
			if (due) out = apply(due, request, out);
		}
		return out;
	}

	private take(
		request: Answered,
		status: number,
		which: (s: Stored) => boolean,
	): Stored | undefined {
		for (const s of this.settings) {
			if (!which(s) || s.left <= 0) continue;
			if (s.method && s.method.toUpperCase() !== request.method.toUpperCase()) continue;
			if (s.pattern && !s.pattern.test(request.path)) continue;
			if (!applies(s, request, status)) continue;
			if (s.skip > 0) {
				s.skip -= 1;
				continue;
			}
			s.left -= 1;
			return s;
		}
		return undefined;
	}
}

/** Whether a rule can change this answer at all (the others pass it by, without counting it). */
function applies(s: Stored, request: Answered, status: number): boolean {
	const upload = request.method === 'POST' && request.path === '/scans';
	if (s.rule === 'createdStatus') return upload && status === 201;
	if (s.rule === 'unpromisedFields')
		return status >= 200 && status < 300 && kindOf(request) !== undefined;
	if (s.rule === 'listOrder') return status === 200;
	if (s.rule === 'redirectAfter') return status >= 200 && status < 300;
	return true;
}

function kindOf(request: Answered): string | undefined {
	if (request.path === '/scans') return request.method === 'POST' ? 'createdScan' : 'listedScan';
	if (request.path === '/webhooks' && request.method === 'GET') return 'webhook';
	return undefined;
}

const redirect = (status: number, location: string): ApiResponse => ({
	status,
	headers: { Location: location },
	html: `<!DOCTYPE html>\n<html><head><title>Redirecting</title></head><body><a href="${location}">${location}</a></body></html>\n`,
});

/** The records of a body: a list (bare or under `data`) or one record (bare or under `data`). */
function recordsOf(body: unknown): Array<Record<string, unknown>> {
	const inner =
		body && typeof body === 'object' && !Array.isArray(body) && 'data' in body
			? (body as { data: unknown }).data
			: body;
	const list = Array.isArray(inner) ? inner : [inner];
	return list.filter((r): r is Record<string, unknown> => !!r && typeof r === 'object');
}

function listOf(body: unknown): unknown[] | undefined {
	if (Array.isArray(body)) return body;
	const data = (body as { data?: unknown } | undefined)?.data;
	return Array.isArray(data) ? data : undefined;
}

function apply(s: Stored, request: Answered, response: ApiResponse): ApiResponse {
	switch (s.rule) {
		case 'createdStatus': {
			const status = Number(s.value);
			if (status >= 300)
				return redirect(status, `${request.base}/scans/${String(request.scanId ?? '')}`);
			return status === 204 ? { status, headers: response.headers } : { ...response, status };
		}
		case 'redirectAfter': {
			const to =
				request.method === 'POST' && request.path === '/scans' && request.scanId !== undefined
					? `${request.base}/scans/${request.scanId}`
					: `${request.base}${request.path}${request.search}`;
			return redirect(Number(s.value), to);
		}
		case 'body':
			return s.value === 'html'
				? {
						status: response.status,
						headers: response.headers,
						html: `<!DOCTYPE html>\n<html><head><title>${response.status}</title></head><body><h1>${response.status}</h1></body></html>\n`,
					}
				: { status: response.status, headers: response.headers };
		case 'listOrder': {
			const body = structuredClone(response.body);
			const list = listOf(body);
			if (list && list.length > 1) {
				if (s.value === 'reversed') list.reverse();
				else list.push(list.shift());
			}
			return { ...response, body };
		}
		case 'unpromisedFields': {
			const promised = PROMISED[kindOf(request) ?? ''] ?? [];
			const body = structuredClone(response.body);
			for (const record of recordsOf(body))
				for (const key of Object.keys(record)) {
					if (promised.includes(key)) continue;
					if (s.value === 'missing') delete record[key];
					else record[key] = OTHER_TYPE[s.value](record[key]);
				}
			return { ...response, body };
		}
		default:
			return response;
	}
}
