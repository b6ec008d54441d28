/**
 * The upload's body is streamed without n8n's redirect layer (follow-redirects keeps every byte
 * it wrote, to send it again after a redirect: the whole file per upload in flight). The
 * transport follows a 307 / 308 on the same origin itself, opening the body afresh, and refuses
 * every other redirect with an error naming the item, before anything is created or charged.
 * Through n8n-core's engine against the sandbox, whose faults answer with the redirects.
 */
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { apiRequestFull } from '../../nodes/shared/transport';
import { multipartBody } from '../../nodes/DocumentScanning/upload/multipartBody';
import { streamRedirect } from '../../nodes/shared/transport/streamBody';
import { jsonOf, run, uploadParams, useSandbox } from '../node/helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();

const pdf = (name: string) => binaryItem(pdfBytes(name), name, 'application/pdf');
const uploads = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.path === '/scans')
		.map((r) => r.status);
const credits = () => sb.get().control.account().used_scans;

function redirectOnce(status: number, location: string, times = 1) {
	sb.get().control.addFault({
		method: 'POST',
		path: '^/scans$',
		kind: 'status',
		status,
		headers: { Location: location },
		times,
	});
}

describe('a redirect of the upload', () => {
	test.each([
		[307, 'the same address, absolute', () => `${sb.get().baseUrl}/scans`],
		[308, 'a relative address', () => '/api/v1/scans'],
	])(
		'%i to %s: the file is sent again from a fresh stream, one scan, one credit',
		async (status, _what, location) => {
			redirectOnce(status, location());
			const result = await run(sb.env(), uploadParams(), [pdf('moved.pdf')]);
			expect(result.error).toBeUndefined();
			expect(jsonOf(result)).toEqual([
				expect.objectContaining({ filename: 'moved.pdf', status: 'uploaded' }),
			]);
			expect(uploads()).toEqual([status, 201]);
			expect(credits()).toBe(1);
			// The scan holds the whole file: the second attempt sent every byte again.
			expect(sb.get().control.getScan(Number(jsonOf(result)[0].id))?.contentSha256).toBeDefined();
		},
	);

	test.each([301, 302, 303])(
		'%i is refused with an error naming the item: nothing created, no credit',
		async (status) => {
			redirectOnce(status, `${sb.get().baseUrl}/scans?token=secret-in-query`);
			const result = await run(sb.env(), uploadParams(), [pdf('a.pdf')], true);
			const [item] = jsonOf(result);
			const error = item.error as IDataObject;
			expect(String(error.message ?? item.error)).toContain(
				`The service answered with a redirect (HTTP ${status}) to ${sb.get().baseUrl}/scans (item 0)`,
			);
			expect(JSON.stringify(item)).not.toContain('secret-in-query');
			expect(JSON.stringify(item)).toContain('would turn the upload into a GET request');
			expect(uploads()).toEqual([status]);
			expect(credits()).toBe(0);
		},
	);

	test('a 307 to another host is refused: the API key goes to the Base URL only', async () => {
		const other = sb.get().baseUrl.replace('127.0.0.1', 'localhost');
		redirectOnce(307, `${other}/scans`);
		const result = await run(sb.env(), uploadParams(), [pdf('a.pdf')]);
		expect(result.error?.message).toBe(
			`The service answered with a redirect (HTTP 307) to ${other}/scans (item 0)`,
		);
		expect(result.error?.description).toMatch(/another host.*Nothing was created/);
		expect(uploads()).toEqual([307]);
		expect(credits()).toBe(0);
	});

	test('more than 5 redirects in a row are refused', async () => {
		redirectOnce(307, `${sb.get().baseUrl}/scans`, 6);
		const result = await run(sb.env(), uploadParams(), [pdf('a.pdf')]);
		expect(result.error?.description).toMatch(/more than 5 redirects/);
		expect(uploads()).toEqual([307, 307, 307, 307, 307, 307]);
		expect(credits()).toBe(0);
	});

	test('a 429 after a followed redirect is still waited out once (Retry-After)', async () => {
		redirectOnce(307, `${sb.get().baseUrl}/scans`);
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'status',
			status: 429,
			headers: { 'Retry-After': '0' },
		});
		const result = await run(sb.env(), uploadParams(), [pdf('a.pdf')]);
		expect(result.error).toBeUndefined();
		expect(uploads()).toEqual([307, 429, 201]);
		expect(credits()).toBe(1);
	});
});

describe('which requests go without the redirect layer', () => {
	/** Calls the transport with a fake n8n helper that records the options and answers 201. */
	async function optionsOf(body: unknown, method: 'GET' | 'POST'): Promise<IHttpRequestOptions> {
		let seen: IHttpRequestOptions | undefined;
		const ctx = {
			getCredentials: async () => ({ baseUrl: 'https://scan.example.com/api/v1' }),
			getNode: () => ({ name: 'Document Scanning' }),
			helpers: {
				httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
					seen = options;
					return { statusCode: 201, headers: {}, body: { id: 1 } };
				},
			},
		};
		await apiRequestFull.call(ctx as never, { method, path: '/scans', body: body as never });
		if (!seen) throw new Error('no request');
		return seen;
	}

	test('the streamed upload body: disableFollowRedirect', async () => {
		const body = multipartBody(
			{ template_id: '1' },
			{
				field: 'file',
				fileName: 'a.pdf',
				mimeType: 'application/pdf',
				size: 4,
				open: async () => Buffer.from('%PDF'),
			},
		);
		expect((await optionsOf(body, 'POST')).disableFollowRedirect).toBe(true);
	});

	test('a GET and a JSON body keep n8n redirects', async () => {
		expect((await optionsOf(undefined, 'GET')).disableFollowRedirect).toBe(false);
		expect((await optionsOf({ name: 'x' }, 'POST')).disableFollowRedirect).toBe(false);
	});
});

describe('streamRedirect', () => {
	const from = 'http://scan.example.com/api/v1/scans';
	test.each([
		[307, 'https://scan.example.com/api/v1/scans', 'https://scan.example.com/api/v1/scans'],
		[308, '/api/v2/scans', 'http://scan.example.com/api/v2/scans'],
		[307, 'scans-new', 'http://scan.example.com/api/v1/scans-new'],
	])('%i to %s is followed', (status, location, expected) => {
		expect(streamRedirect(from, status, location)).toEqual({ follow: expected });
	});

	test.each([
		[307, 'http://other.example.com/scans', /another host/],
		[308, 'http://scan.example.com:8080/scans', /another host/],
		[307, 'https://evil.example.com/scans', /another host/],
		[302, '/api/v1/scans', /GET request/],
		[307, undefined, /no usable address/],
		[307, '', /no usable address/],
		[307, 'http://[bad', /no usable address/],
	])('%i to %s is refused', (status, location, reason) => {
		const result = streamRedirect(from, status, location);
		expect(result && 'refuse' in result && result.refuse.reason).toMatch(reason);
	});

	test('https is never followed down to http', () => {
		const result = streamRedirect(
			'https://scan.example.com/api/v1/scans',
			307,
			'http://scan.example.com/api/v1/scans',
		);
		expect(result && 'refuse' in result).toBe(true);
	});

	test.each([200, 201, 304, 404, 500])('%i is no redirect', (status) => {
		expect(streamRedirect(from, status, '/x')).toBeUndefined();
	});
});
