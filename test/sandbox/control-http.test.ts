import { Sandbox, startSandbox } from '../../sandbox/server';
import { signatureHeader } from '../../sandbox/signing';
import { api, Reply, postScan, unwrap } from '../support/sandbox-api';
import { startConsumer } from '../support/webhook-consumer';

let sandbox: Sandbox;
const log: string[] = [];

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 10, log: (line) => log.push(line) });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.control.reset());

async function control(
	method: string,
	path: string,
	body?: unknown,
	headers: Record<string, string> = {},
): Promise<Reply> {
	const res = await fetch(`${sandbox.origin}/__sandbox${path}`, {
		method,
		headers: { 'Content-Type': 'application/json', ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: res.status, body: (await res.json()) as Reply['body'], headers: res.headers };
}

describe('HTTP control surface (/__sandbox)', () => {
	it('resets with new options and changes options live', async () => {
		await postScan(sandbox);
		const reset = await control('POST', '/reset', { envelope: 'bare' });
		expect(reset.status).toBe(200);
		expect(reset.body.options.envelope).toBe('bare');
		expect((await api(sandbox, 'GET', '/account')).body).toEqual({
			remaining_scans: 2000,
			total_scans: 2000,
			used_scans: 0,
		});

		const changed = await control('POST', '/options', { envelope: 'data', errorsShape: 'list' });
		expect(changed.body).toMatchObject({ envelope: 'data', errorsShape: 'list' });
		expect((await api(sandbox, 'GET', '/account')).body).toHaveProperty('data');
		// A reset goes back to the start options.
		await control('POST', '/reset', {});
		expect((await control('GET', '/options')).body.errorsShape).toBe('map');
	});

	it('records what the ERP stand-in is sent (/bookings), oldest first, until DELETE or reset', async () => {
		expect((await control('POST', '/bookings', { scan_id: 1, total: 2 })).body).toEqual({
			booked: 1,
		});
		await control('POST', '/bookings', { scan_id: 2 });
		const listed = (await control('GET', '/bookings')).body as unknown as Array<{
			at: string;
			body: unknown;
		}>;
		expect(listed.map((b) => b.body)).toEqual([{ scan_id: 1, total: 2 }, { scan_id: 2 }]);
		expect(Number.isNaN(Date.parse(listed[0].at))).toBe(false);
		await control('POST', '/reset', {});
		expect((await control('GET', '/bookings')).body).toEqual([]);
		await control('POST', '/bookings', { scan_id: 3 });
		await control('DELETE', '/bookings');
		expect((await control('GET', '/bookings')).body).toEqual([]);
	});

	it('answers 400 for invalid control input and 404 for unknown control routes', async () => {
		expect((await control('POST', '/options', { envelope: 'xml' })).status).toBe(400);
		expect((await control('POST', '/options', { port: 1 })).body.message).toMatch(
			/cannot change while running/,
		);
		expect((await control('POST', '/accounts', { apiKeys: [] })).status).toBe(400);
		expect((await control('GET', '/nope')).status).toBe(404);
	});

	it('creates accounts, templates and seeded scans, and reads the balance by the key header', async () => {
		expect(
			(await control('POST', '/accounts', { apiKeys: ['http-key'], credits: 3 })).body,
		).toEqual({ id: 3 });
		const template = await control('POST', '/templates', {
			apiKey: 'http-key',
			name: 'Remote',
			extraction_mode: 'tabular',
		});
		expect(template.status).toBe(201);
		const seeded = await control('POST', '/scans', {
			apiKey: 'http-key',
			count: 2,
			status: 'validation_failed',
		});
		expect(seeded.body.ids).toHaveLength(2);
		const list = unwrap((await api(sandbox, 'GET', '/scans', { key: 'http-key' })).body);
		expect(
			list.map((s: { status: string; template_id: number }) => [s.status, s.template_id]),
		).toEqual([
			['validation_failed', template.body.id],
			['validation_failed', template.body.id],
		]);
		const balance = await control('GET', '/account', undefined, { 'X-API-Key': 'http-key' });
		expect(balance.body).toMatchObject({ remaining_scans: 3, used_scans: 0 });
		const scan = await control('GET', `/scans/${seeded.body.ids[0]}`);
		expect(scan.body).toMatchObject({ status: 'validation_failed', charged: false });
	});

	it('holds processing, queues outcomes, injects faults, moves the clock and lists requests', async () => {
		await control('POST', '/hold', { hold: true });
		await control('POST', '/next-outcomes', { outcomes: ['failed'] });
		const { id } = unwrap((await postScan(sandbox, { filename: 'ok.pdf' })).body);
		expect(sandbox.control.getScan(id)?.status).toBe('uploaded');
		expect((await control('POST', `/scans/${id}/step`)).body).toEqual({ id, status: 'processing' });
		expect(sandbox.control.getScan(id)?.status).toBe('processing');
		expect((await control('POST', `/scans/${id}/step`)).body).toEqual({ id, status: 'failed' });
		expect((await control('POST', `/scans/${id}/step`)).status).toBe(400);
		await control('POST', '/hold', { hold: false });
		expect(sandbox.control.getScan(id)?.status).toBe('failed');
		expect((await control('POST', `/scans/${id}/step`)).status).toBe(400);

		await control('POST', '/faults', {
			path: '^/account$',
			kind: 'status',
			status: 429,
			headers: { 'Retry-After': '3' },
		});
		expect((await api(sandbox, 'GET', '/account')).status).toBe(429);
		await control('POST', '/faults', { kind: 'status500', times: 3 });
		await control('DELETE', '/faults');
		expect((await api(sandbox, 'GET', '/account')).status).toBe(200);

		const before = Date.parse(unwrap((await postScan(sandbox)).body).created_at);
		const moved = await control('POST', '/clock', { advanceMs: 2 * 3600 * 1000 });
		expect(Date.parse(moved.body.now) - before).toBeGreaterThanOrEqual(2 * 3600 * 1000 - 1000);
		const after = Date.parse(unwrap((await postScan(sandbox)).body).created_at);
		expect(after - before).toBeGreaterThanOrEqual(2 * 3600 * 1000 - 1000);

		const requests = await control('GET', '/requests');
		expect(
			requests.body.map(
				(r: { method: string; path: string; status: number }) =>
					`${r.method} ${r.path} ${r.status}`,
			),
		).toEqual([
			'POST /scans 201',
			'GET /account 429',
			'GET /account 200',
			'POST /scans 201',
			'POST /scans 201',
		]);
		await control('DELETE', '/requests');
		expect((await control('GET', '/requests')).body).toEqual([]);
	});

	it('delivers on demand, waits for deliveries and deactivates or deletes webhooks', async () => {
		const r = await startConsumer(200);
		try {
			sandbox.control.setOptions({ allowInsecureWebhookUrls: true });
			const hook = unwrap(
				(
					await api(sandbox, 'POST', '/webhooks', {
						json: { name: 'n', url: r.url, events: ['scan.completed'] },
					})
				).body,
			);
			const delivered = await control('POST', '/deliver', {
				webhookId: hook.id,
				event: 'scan.failed',
			});
			expect(delivered.body).toMatchObject({ event: 'scan.failed', status: 200, success: true });
			const expected = signatureHeader(hook.secret, r.received[0].rawBody);
			expect(r.received[0].headers['x-service-signature']).toBe(expected);
			expect(
				(await control('POST', '/deliveries/wait', { count: 1, timeoutMs: 100 })).body,
			).toHaveLength(1);
			expect((await control('POST', '/deliveries/wait', { count: 2, timeoutMs: 50 })).status).toBe(
				400,
			);

			const deactivated = await control('POST', `/webhooks/${hook.id}/deactivate`);
			expect(deactivated.body).toMatchObject({ active: false, secret: hook.secret });
			expect((await control('DELETE', `/webhooks/${hook.id}`)).body).toEqual({ deleted: true });
			expect((await control('GET', `/webhooks/${hook.id}`)).status).toBe(404);
		} finally {
			await r.close();
		}
	});

	it('logs one line per request without API keys or webhook secrets', async () => {
		log.length = 0;
		sandbox.control.setOptions({ allowInsecureWebhookUrls: true });
		const hook = unwrap(
			(
				await api(sandbox, 'POST', '/webhooks', {
					json: { name: 'n', url: 'http://127.0.0.1:9/x', events: ['scan.failed'] },
				})
			).body,
		);
		await api(sandbox, 'GET', '/account', { scheme: 'x-api-key' });
		await fetch(`${sandbox.baseUrl}/account?api_key=sk_test_sandbox_key`);
		await control('GET', `/webhooks/${hook.id}`);
		expect(log).toHaveLength(4);
		expect(log[0]).toMatch(/^POST \/api\/v1\/webhooks -> 201 \d+ms auth=bearer$/);
		expect(log[2]).toContain('api_key=%5Bredacted%5D');
		const all = log.join('\n');
		expect(all).not.toContain('sk_test_sandbox_key');
		expect(all).not.toContain(hook.secret);
	});
});
