/**
 * Review of issue 39 (area 1): every answer the spec leaves open after the service stored an
 * upload (sandbox `setRewrites`), on a batch of three documents under Continue On Fail, through
 * n8n-core against the sandbox. Each item ends as its own scan (found) or as "outcome unknown"
 * naming its scan among the candidates; never "no credit was used"; one credit per document;
 * exactly one item per input, paired to it.
 */
import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import type { RewriteSetting } from '../../sandbox/server';
import { binaryItem, pdfBytes } from '../support/fixtures';
import type { Answer } from './rev39-front';
import { jsonBody, startFront } from './rev39-front';
import {
	FAST_WAIT,
	jsonOf,
	LATEST,
	pairedOf,
	run,
	uploadParams,
	useSandbox,
} from '../node/helpers';

const sb = useSandbox();

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The scan each POST /scans made, by the SHA-256 of its file. */
const madeBySha = () =>
	new Map(
		sb
			.get()
			.control.requests()
			.filter((r) => r.method === 'POST' && r.scanId !== undefined)
			.map((r) => [r.contentSha256!, r.scanId!] as const),
	);

const rewrites: Array<[string, RewriteSetting]> = [
	...['200', '202', '204', '301', '302', '303', '307', '308'].map(
		(value): [string, RewriteSetting] => [
			`createdStatus ${value}`,
			{ rule: 'createdStatus', value, method: 'POST', path: '^/scans$' },
		],
	),
	...['301', '302', '303', '307', '308'].map((value): [string, RewriteSetting] => [
		`redirectAfter ${value}`,
		{ rule: 'redirectAfter', value, method: 'POST', path: '^/scans$' },
	]),
	...['html', 'empty'].map((value): [string, RewriteSetting] => [
		`body ${value}`,
		{ rule: 'body', value, method: 'POST', path: '^/scans$' },
	]),
];

function expectOwnScans(
	items: IDataObject[],
	files: Buffer[],
	made: Map<string, number>,
	waited: boolean,
) {
	items.forEach((item, i) => {
		const own = made.get(sha(files[i]));
		expect(own).toBeDefined();
		expect(JSON.stringify(item)).not.toMatch(/no (scan )?credit was used/i);
		if (item.outcomeUnknown === true) {
			expect(item.candidateScanIds).toEqual(expect.arrayContaining([own]));
		} else {
			expect(item.error).toBeUndefined();
			expect(Number(item.id)).toBe(own);
			if (waited) expect(['completed', 'validation_failed', 'failed']).toContain(item.status);
		}
	});
}

describe.each(rewrites)('every upload answered with %s', (_name, rewrite) => {
	test.each([
		['version 1 (exact name)', 1, false],
		['latest (fingerprint), Wait for Completion', LATEST, true],
	] as const)(
		'%s, three documents, Continue On Fail',
		async (_what, version, wait) => {
			sb.get().control.setRewrites([rewrite]);
			const files = [0, 1, 2].map((i) => pdfBytes(`rev39-${_name}-${version}-${i}`));
			const items = files.map((bytes, i) => binaryItem(bytes, `doc-${i}.pdf`, 'application/pdf'));
			const params = wait
				? uploadParams({ waitForCompletion: true, options: FAST_WAIT })
				: uploadParams();
			const result = await run(sb.env(), params, items, true, version);
			expect(result.error).toBeUndefined();
			expect(pairedOf(result)).toEqual([0, 1, 2]);
			const made = madeBySha();
			expect(made.size).toBe(3);
			// One credit per document: no re-send made a second scan.
			expect(sb.get().control.account().used_scans).toBe(3);
			expectOwnScans(jsonOf(result), files, made, wait);
		},
		30_000,
	);
});

test("same file name, different content, only the first upload answered 302 (version 1, Continue On Fail): neither item is output as the other one's scan", async () => {
	sb.get().control.setRewrites([
		{ rule: 'createdStatus', value: '302', method: 'POST', path: '^/scans$', times: 1 },
	]);
	const files = [0, 1].map((i) => pdfBytes(`rev39-same-name-${i}`));
	const items = files.map((bytes) => binaryItem(bytes, 'invoice.pdf', 'application/pdf'));
	const result = await run(sb.env(), uploadParams(), items, true, 1);
	expect(result.error).toBeUndefined();
	expect(pairedOf(result)).toEqual([0, 1]);
	const made = madeBySha();
	expect(sb.get().control.account().used_scans).toBe(2);
	expectOwnScans(jsonOf(result), files, made, false);
});

/** Answers the sandbox's rewrites do not play, from a front server in front of it. */
describe('answers of a front server after the upload was stored', () => {
	const created = (answer: Answer): IDataObject => {
		// The sandbox answers `{ data: {...} }`: the creation object itself.
		const body = jsonBody(answer) as IDataObject;
		return (body.data as IDataObject | undefined) ?? body;
	};
	const json = (status: number, body: unknown, headers: Answer['headers'] = {}): Answer => ({
		status,
		headers: { ...headers, 'content-type': 'application/json' },
		body: Buffer.from(JSON.stringify(body)),
	});
	const cases: Array<[string, (answer: Answer, origin: string) => Answer]> = [
		['302 without Location', () => ({ status: 302, headers: {}, body: Buffer.alloc(0) })],
		[
			'302 to the created scan on another origin',
			(a) => ({
				status: 302,
				headers: { location: `http://elsewhere.invalid/api/v1/scans/${String(created(a).id)}` },
				body: Buffer.alloc(0),
			}),
		],
		[
			'303 to the created scan by a relative Location',
			(a) => ({
				status: 303,
				headers: { location: `/api/v1/scans/${String(created(a).id)}` },
				body: Buffer.alloc(0),
			}),
		],
		[
			'308 to an address that is not the API (/dashboard)',
			(_a, origin) => ({
				status: 308,
				headers: { location: `${origin}/dashboard` },
				body: Buffer.alloc(0),
			}),
		],
		['200 with the scan under another key', (a) => json(200, { scan: created(a) })],
		['202 naming no scan', () => json(202, { queued: true })],
		['201 with the scan under data', (a) => json(201, { data: created(a) })],
		['201 with the id as text', (a) => json(201, { ...created(a), id: String(created(a).id) })],
		['201 with JSON null', () => json(201, null)],
		['201 with a JSON list', (a) => json(201, [created(a)])],
	];

	test.each(cases)(
		'%s: version 1, three documents, Continue On Fail',
		async (name, change) => {
			const front = await startFront(sb.get().baseUrl, (request, answer) =>
				request.method === 'POST' && /\/scans$/.test(request.path) && answer.status === 201
					? change(answer, front.origin)
					: answer,
			);
			try {
				const files = [0, 1, 2].map((i) => pdfBytes(`rev39-front-${name}-${i}`));
				const items = files.map((bytes, i) =>
					binaryItem(bytes, `front-${i}.pdf`, 'application/pdf'),
				);
				const result = await run(sb.env({ baseUrl: front.base }), uploadParams(), items, true, 1);
				expect(result.error).toBeUndefined();
				expect(pairedOf(result)).toEqual([0, 1, 2]);
				const made = madeBySha();
				expect(made.size).toBe(3);
				expect(sb.get().control.account().used_scans).toBe(3);
				expectOwnScans(jsonOf(result), files, made, false);
			} finally {
				await front.close();
			}
		},
		30_000,
	);

	// Without Continue On Fail: one of each kind (redirect refused, redirect elsewhere, 2xx naming no scan).
	const stops = cases.filter(([name]) =>
		['302 without Location', '308 to an address', '202 naming no scan'].some((start) =>
			name.startsWith(start),
		),
	);
	test.each(stops)(
		'%s: version 1, no Continue On Fail: the stop error names the scan',
		async (name, change) => {
			const front = await startFront(sb.get().baseUrl, (request, answer) =>
				request.method === 'POST' && /\/scans$/.test(request.path) && answer.status === 201
					? change(answer, front.origin)
					: answer,
			);
			try {
				const bytes = pdfBytes(`rev39-front-stop-${name}`);
				const item = binaryItem(bytes, 'front-stop.pdf', 'application/pdf');
				const result = await run(sb.env({ baseUrl: front.base }), uploadParams(), [item], false, 1);
				const own = madeBySha().get(sha(bytes));
				expect(own).toBeDefined();
				expect(sb.get().control.account().used_scans).toBe(1);
				if (result.error) {
					const said = `${result.error.message} ${String((result.error as { description?: string }).description)}`;
					expect(said).toContain(String(own));
					expect(said).not.toMatch(/no (scan )?credit was used/i);
				} else {
					expect(jsonOf(result).map((scan) => Number(scan.id))).toEqual([own]);
				}
			} finally {
				await front.close();
			}
		},
		30_000,
	);
});
