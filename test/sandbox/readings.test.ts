/**
 * The readings the sandbox plays where the API documentation is silent
 * (sandbox/engine/readings.ts), those added for the invariant generator (issue 31 §1): redirects
 * to the same or another origin, held answers, a finished scan processed again, every
 * `scan.failed` body, late deliveries, `meta` reporting any page count, other clients scheduled
 * against a client's requests, and what the request log records for the invariants.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { READINGS } from '../../sandbox/engine/readings';
import { DEFAULT_API_KEY, startSandbox, type Sandbox } from '../../sandbox/server';
import { pdfBytes } from '../support/fixtures';
import { api, postScan, unwrap } from '../support/sandbox-api';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 10, allowInsecureWebhookUrls: true });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.control.reset());

const control = async (route: string, body?: unknown, method = 'POST') => {
	const res = await fetch(`${sandbox.origin}/__sandbox${route}`, {
		method,
		headers: { 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('the list of readings', () => {
	it('docs/sandbox.md shows every reading of sandbox/engine/readings.ts, once', () => {
		const docs = readFileSync(path.resolve(__dirname, '../../docs/sandbox.md'), 'utf8');
		const section = docs.split('## Readings')[1]?.split('\n## ')[0] ?? '';
		const rows = section.split('\n').filter((line) => /^\| `/.test(line));
		expect(rows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1])).toEqual(READINGS.map((r) => r.name));
		for (const reading of READINGS) {
			const row = rows.find((line) => line.startsWith(`| \`${reading.name}\``))!;
			for (const value of reading.values) expect(row).toContain(`\`${value}\``);
		}
	});
});

describe('redirects, to the same origin or another', () => {
	it('302 to the other origin: the Location keeps path and query; the other origin serves the API and logs the key it got', async () => {
		sandbox.control.addFault({ method: 'GET', path: '^/account$', kind: 'redirect', to: 'other' });
		const first = await fetch(`${sandbox.baseUrl}/account?x=1`, {
			headers: { Authorization: `Bearer ${DEFAULT_API_KEY}` },
			redirect: 'manual',
		});
		expect(first.status).toBe(302);
		const location = first.headers.get('location')!;
		expect(location).toBe(`${sandbox.otherOrigin}/api/v1/account?x=1`);
		expect(sandbox.otherOrigin).not.toBe(sandbox.origin);
		const second = await fetch(location, { headers: { 'X-API-Key': DEFAULT_API_KEY } });
		expect(unwrap(await second.json()).remaining_scans).toBe(2000);
		expect(
			sandbox.control.requests().map((r) => [r.path, r.status, r.authScheme, r.origin]),
		).toEqual([
			['/account', 302, 'bearer', undefined],
			['/account', 200, 'x-api-key', 'other'],
		]);
	});

	it('GET /__sandbox/origins names both origins; any path at the other origin is logged with the key it got', async () => {
		const { status, body } = await control('/origins', undefined, 'GET');
		expect(status).toBe(200);
		expect(body).toEqual({
			origin: sandbox.origin,
			otherOrigin: sandbox.otherOrigin,
			baseUrl: sandbox.baseUrl,
		});
		const moved = await fetch(`${sandbox.otherOrigin}/api/v1/moved?token=t`, {
			headers: { 'X-API-Key': DEFAULT_API_KEY },
		});
		expect(moved.status).toBe(404);
		expect(sandbox.control.requests().map((r) => [r.path, r.authScheme, r.origin])).toEqual([
			['/moved', 'x-api-key', 'other'],
		]);
	});

	it.each([301, 303, 307, 308])('%i to the same origin, then the real answer', async (status) => {
		await control('/faults', { path: '^/scans/1$', kind: 'redirect', status, times: 1 });
		const [id] = sandbox.control.seedScans({ count: 1 });
		const res = await fetch(`${sandbox.baseUrl}/scans/${id}`, {
			headers: { Authorization: `Bearer ${DEFAULT_API_KEY}` },
		});
		expect(unwrap(await res.json()).id).toBe(id);
		expect(sandbox.control.requests().map((r) => r.status)).toEqual([status, 200]);
	});

	it('refuses a redirect status that is not one', () => {
		expect(() => sandbox.control.addFault({ kind: 'redirect', status: 200, to: 'same' })).toThrow(
			/301, 302, 303, 307, 308/,
		);
		expect(() => sandbox.control.addFault({ kind: 'redirect', to: 'x' as never })).toThrow(
			/same' or 'other/,
		);
	});
});

describe('held answers', () => {
	it('a held request is answered only after releaseHeld, however long that takes', async () => {
		sandbox.control.addFault({ method: 'GET', path: '^/account$', kind: 'hold' });
		let answered = false;
		const reply = api(sandbox, 'GET', '/account').then((r) => {
			answered = true;
			return r;
		});
		for (let i = 0; i < 50 && sandbox.control.heldRequests() === 0; i++)
			await new Promise((resolve) => setTimeout(resolve, 5));
		expect(sandbox.control.heldRequests()).toBe(1);
		expect(answered).toBe(false);
		expect((await control('/held', undefined, 'GET')).body).toEqual({ held: 1 });
		expect((await control('/held/release', {})).body).toEqual({ released: 1 });
		expect((await reply).status).toBe(200);
	});
});

describe('a finished scan processed again', () => {
	it('takes the new outcome with new data and sends its event again', async () => {
		const receiver = await startCollector();
		try {
			const created = await api(sandbox, 'POST', '/webhooks', {
				json: { name: 'w', url: receiver.url, events: ['scan.completed', 'scan.failed'] },
			});
			expect(created.status).toBe(201);
			const [id] = sandbox.control.seedScans({ count: 1, status: 'validation_failed' });
			const before = sandbox.control.getScan(id)!;
			expect((await control(`/scans/${id}/reprocess`, { outcome: 'completed' })).body).toEqual({
				id,
				status: 'completed',
			});
			const after = sandbox.control.getScan(id)!;
			expect(after.status).toBe('completed');
			expect(after.extractedData).not.toEqual(before.extractedData);
			const [delivery] = await sandbox.control.waitForDeliveries(1);
			expect(JSON.parse(delivery.body).data).toMatchObject({
				scan_id: id,
				status: 'completed',
				extracted_data: after.extractedData,
			});
			sandbox.control.reprocessScan(id, 'failed');
			const [, failed] = await sandbox.control.waitForDeliveries(2);
			expect(failed.event).toBe('scan.failed');
		} finally {
			await receiver.close();
		}
	});

	it('refuses a scan that has not finished', () => {
		const [id] = sandbox.control.seedScans({ count: 1, status: 'processing' });
		expect(() => sandbox.control.reprocessScan(id, 'completed')).toThrow(/has not finished/);
	});
});

describe('scan.failed bodies and late deliveries', () => {
	it.each([
		['scan_id', (id: number) => ({ data: expect.objectContaining({ scan_id: id }) })],
		['id', (id: number) => ({ data: expect.objectContaining({ id }) })],
		['topLevel', (id: number) => ({ scan_id: id, status: 'failed' })],
		['noMessage', (id: number) => ({ data: expect.objectContaining({ scan_id: id }) })],
		[
			'extra',
			(id: number) => ({
				webhook_id: 1,
				data: expect.objectContaining({ scan_id: id, error_code: 'unreadable' }),
			}),
		],
	] as const)('failedBody %s', async (shape, expected) => {
		const receiver = await startCollector();
		try {
			sandbox.control.setOptions({ failedBody: shape });
			await api(sandbox, 'POST', '/webhooks', {
				json: { name: 'w', url: receiver.url, events: ['scan.failed'] },
			});
			const [id] = sandbox.control.seedScans({ count: 1, status: 'failed' });
			const delivery = await sandbox.control.deliver(1, 'scan.failed', id);
			const body = JSON.parse(delivery.body);
			expect(body).toMatchObject({ event: 'scan.failed', ...expected(id) });
			if (shape === 'noMessage') expect('error_message' in body.data).toBe(false);
			if (shape === 'topLevel') expect(body.data).toBeUndefined();
		} finally {
			await receiver.close();
		}
	});

	it('deliveryLateMs: the timestamp is the event time, that long before the delivery is sent', async () => {
		const receiver = await startCollector();
		try {
			sandbox.control.setOptions({ deliveryLateMs: 6 * 60_000 });
			await api(sandbox, 'POST', '/webhooks', {
				json: { name: 'w', url: receiver.url, events: ['scan.completed'] },
			});
			const [id] = sandbox.control.seedScans({ count: 1 });
			const delivery = await sandbox.control.deliver(1, 'scan.completed', id);
			const age = Date.now() - Date.parse(JSON.parse(delivery.body).timestamp);
			expect(age).toBeGreaterThanOrEqual(6 * 60_000 - 1000);
			expect(age).toBeLessThan(7 * 60_000);
		} finally {
			await receiver.close();
		}
	});
});

describe('meta reporting any page count', () => {
	it('page 1 says 20,000 pages while the account holds 2; the pages served are the real ones', async () => {
		sandbox.control.seedScans({ count: 30 });
		sandbox.control.setListing({ metaPages: 20_000 });
		const page1 = (await api(sandbox, 'GET', '/scans')).body;
		expect(page1.meta).toMatchObject({ last_page: 20_000, total: 500_000 });
		expect(page1.links.next).toContain('page=2');
		expect(page1.data).toHaveLength(25);
		expect((await api(sandbox, 'GET', '/scans?page=2')).body.data).toHaveLength(5);
		expect((await api(sandbox, 'GET', '/scans?page=3')).body.data).toHaveLength(0);
		sandbox.control.setListing({ metaPages: null });
		expect((await api(sandbox, 'GET', '/scans')).body.meta.last_page).toBe(2);
		expect(() => sandbox.control.setListing({ metaPages: 0 })).toThrow(/metaPages/);
	});
});

describe('other clients scheduled against the client requests', () => {
	it('fillHour when the second upload arrives: it gets 429, the first got 201', async () => {
		sandbox.control.setOptions({ rateLimitPerHour: 10 });
		await control('/at-request', {
			after: 1,
			method: 'POST',
			path: '^/scans$',
			activity: { fillHour: true },
		});
		expect((await postScan(sandbox)).status).toBe(201);
		expect((await postScan(sandbox, { file: pdfBytes('b') })).status).toBe(429);
		expect(sandbox.control.account().used_scans).toBe(10);
	});

	it('uploads that finish later, credits and seeded scans, now or at a request', async () => {
		sandbox.control.hold(true);
		sandbox.control.otherClients({ uploads: { count: 2, status: 'processing' }, credits: 3 });
		const scans = [1, 2].map((id) => sandbox.control.getScan(id)!);
		expect(scans.map((s) => [s.status, s.charged])).toEqual([
			['uploaded', true],
			['uploaded', true],
		]);
		expect(sandbox.control.account().used_scans).toBe(5);
		sandbox.control.atRequest(
			0,
			{ method: 'GET', path: '^/scans/\\d+$' },
			{
				create: { count: 1, status: 'failed' },
			},
		);
		expect(sandbox.control.getScan(3)).toBeUndefined();
		await api(sandbox, 'GET', '/scans/1');
		expect(sandbox.control.getScan(3)?.status).toBe('failed');
		sandbox.control.reset();
		expect(sandbox.control.getScan(1)).toBeUndefined();
	});
});

describe('what the request log records for the invariants', () => {
	it('the scan a POST /scans created and its content SHA-256, also when the answer was dropped after the commit', async () => {
		sandbox.control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		const file = pdfBytes('lost');
		await expect(postScan(sandbox, { file })).rejects.toThrow();
		const reply = await postScan(sandbox, { file: pdfBytes('kept') });
		const [lost, kept] = sandbox.control.requests();
		expect(lost).toMatchObject({ status: 201, fault: 'dropAfterCommit', scanId: 1 });
		expect(lost.contentSha256).toBe(sandbox.control.getScan(1)!.contentSha256);
		expect(kept).toMatchObject({ status: 201, scanId: unwrap(reply.body).id });
		await postScan(sandbox, { file });
		expect(sandbox.control.requests()[2]).toMatchObject({ status: 409 });
		expect(sandbox.control.requests()[2].scanId).toBeUndefined();
	});
});

/** A loopback receiver that answers 200 to every delivery. */
async function startCollector(): Promise<{ url: string; close: () => Promise<void> }> {
	const server: Server = createServer((req, res) => {
		req.resume();
		req.on('end', () => res.end('{}'));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
