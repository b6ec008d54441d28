/**
 * The transport and the execution's pace (ApiRequest.pace): each attempt waits for a place and
 * reports how it ended (status, or a lost answer), requests are compared by kind, and with a
 * pace the credential is read once per execution and handed to n8n's request helper. The one
 * fake is n8n's request helper.
 */
import type { IAdditionalCredentialOptions, IHttpRequestOptions } from 'n8n-workflow';

import { apiRequestFull, paceKind } from '../../nodes/shared/transport/request';
import { multipartBody } from '../../nodes/DocumentScanning/upload/multipartBody';
import { Pace } from '../../nodes/shared/pace';

interface Fake {
	ctx: unknown;
	credentialReads: () => number;
	/** What each request handed n8n's helper as the credential already read. */
	handed: Array<IAdditionalCredentialOptions | undefined>;
}

/** A context whose request helper answers with `answer()` (a response, or a thrown error). */
function fake(answer: () => { statusCode: number } | Error): Fake {
	let reads = 0;
	const handed: Fake['handed'] = [];
	const ctx = {
		getCredentials: async () => {
			reads++;
			return { baseUrl: 'https://scan.example.com/api/v1', apiKey: 'sk_key' };
		},
		getNode: () => ({
			name: 'Document Scanning',
			type: 'test',
			typeVersion: 1,
			credentials: { documentScanningApi: { id: '7', name: 'Scanning account' } },
		}),
		helpers: {
			httpRequestWithAuthentication: async (
				_type: string,
				_options: IHttpRequestOptions,
				additional?: IAdditionalCredentialOptions,
			) => {
				handed.push(additional);
				const result = answer();
				if (result instanceof Error) throw result;
				return { headers: {}, body: { id: 1 }, ...result };
			},
		},
	};
	return { ctx, credentialReads: () => reads, handed };
}

test('with a pace the credential is read once for all requests and handed to n8n for the key; without, n8n reads it', async () => {
	const withPace = fake(() => ({ statusCode: 200 }));
	const pace = new Pace(8);
	for (let i = 0; i < 5; i++)
		await apiRequestFull.call(withPace.ctx as never, { method: 'GET', path: `/scans/${i}`, pace });
	expect(withPace.credentialReads()).toBe(1);
	expect(withPace.handed).toHaveLength(5);
	for (const additional of withPace.handed)
		expect(additional?.credentialsDecrypted).toEqual({
			id: '7',
			name: 'Scanning account',
			type: 'documentScanningApi',
			data: { baseUrl: 'https://scan.example.com/api/v1', apiKey: 'sk_key' },
		});

	const without = fake(() => ({ statusCode: 200 }));
	for (let i = 0; i < 5; i++)
		await apiRequestFull.call(without.ctx as never, { method: 'GET', path: `/scans/${i}` });
	expect(without.credentialReads()).toBe(5);
	expect(without.handed).toEqual([undefined, undefined, undefined, undefined, undefined]);
});

test('quick answers grow the pace; a 503 halves it', async () => {
	const pace = new Pace(32);
	const ok = fake(() => ({ statusCode: 200 }));
	for (let i = 0; i < 3; i++)
		await apiRequestFull.call(ok.ctx as never, { method: 'GET', path: '/account', pace });
	expect(pace.size).toBe(8);
	const refused = fake(() => ({ statusCode: 503 }));
	await expect(
		apiRequestFull.call(refused.ctx as never, {
			method: 'GET',
			path: '/account',
			pace,
			retry: false,
		}),
	).rejects.toThrow();
	expect(pace.size).toBe(4);
	expect(pace.halvings).toBe(1);
});

test('a dropped connection is a lost answer: it halves the pace', async () => {
	const pace = new Pace(32);
	const dropped = fake(() => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
	await expect(
		apiRequestFull.call(dropped.ctx as never, {
			method: 'POST',
			path: '/scans',
			pace,
			retry: false,
		}),
	).rejects.toThrow();
	expect(pace.halvings).toBe(1);
	expect(pace.size).toBe(2);
});

test('requests are compared by kind: method, path without IDs, and an upload size class', () => {
	expect(paceKind({ method: 'GET', path: '/scans/123' })).toBe('GET /scans/{id}');
	expect(paceKind({ method: 'GET', path: '/webhooks/7/logs' })).toBe('GET /webhooks/{id}/logs');
	expect(paceKind({ method: 'GET', path: '/scans' })).toBe('GET /scans');
	const body = (size: number) =>
		multipartBody(
			{ template_id: '1' },
			{
				field: 'file',
				fileName: 'a.pdf',
				mimeType: 'application/pdf',
				size,
				open: async () => Buffer.alloc(size),
			},
		);
	const small = paceKind({ method: 'POST', path: '/scans', body: body(1000) });
	const large = paceKind({ method: 'POST', path: '/scans', body: body(15 * 1024 * 1024) });
	expect(small).toMatch(/^POST \/scans \d+$/);
	expect(large).not.toBe(small);
	expect(paceKind({ method: 'POST', path: '/scans', body: body(12 * 1024 * 1024) })).toBe(
		paceKind({ method: 'POST', path: '/scans', body: body(15 * 1024 * 1024) }),
	);
});
