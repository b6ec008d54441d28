/**
 * A hand-made fake of n8n's request helper for the upload unit tests: POST /scans follows a
 * script (create, lose the answer, or an HTTP status: 409, 400, 402, 429, 500), GET /scans lists the fake's scans newest
 * first, 25 a page, with a `Date` header. Nothing else is faked.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

export type PostStep = 'create' | 'create-lost' | 'lost' | 409 | 400 | 402 | 429 | 500;

export interface FakeScan extends IDataObject {
	id: number;
	template_id: number;
	filename: string;
	status: string;
	created_at: string;
}

export interface FakeOptions {
	posts?: PostStep[];
	/** Server clock minus local clock (ms), sent in the `Date` header. */
	clockOffset?: number;
	/** Fails every GET /scans with a 400. */
	listingFails?: boolean;
	signal?: AbortSignal;
	envelope?: 'data' | 'bare';
	/**
	 * What a page past the end of GET /scans looks like (the spec does not say): an empty page
	 * (default), 404, 422, the last page again, or the server ignores `page` (page 1 always).
	 */
	pageEnd?: 'empty' | 404 | 422 | 'repeatLast' | 'ignorePage';
	/** Called before each GET /scans is answered, e.g. to add scans while the listing is read. */
	beforeList?: (page: number) => void;
}

export interface SentRequest {
	method: string;
	url: string;
	qs: IDataObject;
	fileName?: string;
	templateField?: string;
	timeout?: number;
}

const node = {
	id: '1',
	name: 'Upload',
	type: 'test',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

async function readAll(body: unknown): Promise<string> {
	if (Buffer.isBuffer(body)) return body.toString('latin1');
	const chunks: Buffer[] = [];
	const blob = body as { stream?: () => AsyncIterable<Buffer | string> };
	const source =
		typeof blob.stream === 'function' ? blob.stream() : (body as AsyncIterable<Buffer>);
	for await (const chunk of source)
		chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
	return Buffer.concat(chunks).toString('latin1');
}

export function fakeApi(options: FakeOptions = {}) {
	const scans: FakeScan[] = [];
	const sent: SentRequest[] = [];
	const posts = [...(options.posts ?? ['create'])];
	let nextId = 1000;
	const iso = (ms: number) => new Date(ms).toISOString();

	const addScan = (scan: Partial<FakeScan> & { filename: string }): FakeScan => {
		const full: FakeScan = {
			id: nextId++,
			template_id: 7,
			status: 'processing',
			created_at: iso(Date.now() + (options.clockOffset ?? 0)),
			...scan,
		};
		// Newest first; IDs grow, so a new scan goes to the top.
		scans.unshift(full);
		return full;
	};

	const respond = (statusCode: number, body: unknown) => ({
		statusCode,
		headers: { date: new Date(Date.now() + (options.clockOffset ?? 0)).toUTCString() },
		body,
	});

	const request = async (_type: string, req: IDataObject) => {
		const qs = (req.qs ?? {}) as IDataObject;
		const entry: SentRequest = {
			method: String(req.method),
			url: String(req.url),
			qs,
			timeout: req.timeout as number,
		};
		sent.push(entry);
		if (req.method === 'POST') {
			const text = await readAll(req.body);
			entry.fileName = /filename="([^"]*)"/.exec(text)?.[1];
			entry.templateField = /name="template_id"\r\n\r\n([^\r]*)/.exec(text)?.[1];
			const step = posts.shift() ?? 'create';
			const template = Number(entry.templateField);
			if (step === 'create' || step === 'create-lost') {
				const scan = addScan({ filename: entry.fileName ?? '', template_id: template });
				if (step === 'create') return respond(201, { data: scan });
			}
			if (step === 'create-lost' || step === 'lost')
				throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
			return respond(step, { error: { code: `status_${step}`, message: `refused ${step}` } });
		}
		if (options.listingFails) return respond(400, { error: { message: 'no listing' } });
		const asked = Number(qs.page ?? 1);
		options.beforeList?.(asked);
		const mine = scans.filter(
			(s) => qs.template_id === undefined || s.template_id === qs.template_id,
		);
		const last = Math.max(1, Math.ceil(mine.length / 25));
		const pageEnd = options.pageEnd ?? 'empty';
		if (asked > last && (pageEnd === 404 || pageEnd === 422))
			return respond(pageEnd, { error: 'Invalid page', message: 'Invalid page' });
		const page =
			pageEnd === 'ignorePage' ? 1 : pageEnd === 'repeatLast' ? Math.min(asked, last) : asked;
		const items = mine.slice((page - 1) * 25, page * 25);
		if (options.envelope === 'bare') return respond(200, items);
		return respond(200, {
			data: items,
			meta: {
				current_page: page,
				last_page: last,
				per_page: 25,
				total: mine.length,
			},
		});
	};

	const ctx = {
		getNode: () => node,
		getCredentials: async () => ({ baseUrl: 'https://api.example.com/v1', apiKey: 'secret' }),
		getExecutionCancelSignal: () => options.signal,
		helpers: { httpRequestWithAuthentication: request },
	} as unknown as IExecuteFunctions;
	return { ctx, scans, sent, addScan, iso };
}
