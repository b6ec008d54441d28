import { createHmac, timingSafeEqual } from 'node:crypto';
import { Sandbox, startSandbox } from '../../sandbox/server';
import { api, Reply, sleep, unwrap, postScan, waitForStatus } from '../support/sandbox-api';
import { WebhookConsumer, startConsumer } from '../support/webhook-consumer';

let sandbox: Sandbox;
const receivers: WebhookConsumer[] = [];

async function receiver(respondWith: number | 'hang' = 200): Promise<WebhookConsumer> {
	const r = await startConsumer(respondWith);
	receivers.push(r);
	return r;
}

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 10 });
});
afterAll(async () => {
	await sandbox.close();
	await Promise.all(receivers.map((r) => r.close()));
});
beforeEach(() => sandbox.control.reset());

async function createWebhook(body: Record<string, unknown>) {
	return api(sandbox, 'POST', '/webhooks', { json: body });
}

/** Creates a webhook (insecure URLs allowed) and returns its record including the secret. */
async function hookTo(url: string, events: string[] = ['scan.completed', 'scan.failed']) {
	sandbox.control.setOptions({ allowInsecureWebhookUrls: true });
	const reply = await createWebhook({ name: 'test hook', url, events });
	expect(reply.status).toBe(201);
	return unwrap(reply.body);
}

function verify(secret: string, rawBody: Buffer, header: string | string[] | undefined): boolean {
	const expected = Buffer.from(
		`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`,
	);
	const given = Buffer.from(String(header));
	return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('webhook endpoints', () => {
	it('creates a webhook: 201, the record plus a secret that is shown only once', async () => {
		const reply = await createWebhook({
			name: 'Orders',
			url: 'https://hooks.example.com/scan',
			events: ['scan.completed'],
		});
		expect(reply.status).toBe(201);
		expect(reply.body.data).toEqual({
			id: 1,
			name: 'Orders',
			url: 'https://hooks.example.com/scan',
			events: ['scan.completed'],
			is_active: true,
			failure_count: 0,
			created_at: expect.stringMatching(/\+00:00$/),
			last_delivery_at: null,
			secret: expect.stringMatching(/^whsec_[0-9a-f]{32}$/),
		});
		expect(sandbox.control.getWebhook(1)?.secret).toBe(reply.body.data.secret);

		const { secret: _secret, ...record } = reply.body.data;
		expect((await api(sandbox, 'GET', '/webhooks')).body).toEqual({ data: [record] });
	});

	it('accepts events as a comma-separated string and collapses duplicates', async () => {
		const reply = await createWebhook({
			name: 'n',
			url: 'https://hooks.example.com',
			events: 'scan.failed, scan.completed,scan.failed',
		});
		expect(reply.status).toBe(201);
		expect(reply.body.data.events).toEqual(['scan.failed', 'scan.completed']);
	});

	it('names every invalid field (map and list shapes)', async () => {
		const map = await createWebhook({});
		expect(map.status).toBe(422);
		expect(Object.keys(map.body.errors)).toEqual(['name', 'url', 'events']);
		sandbox.control.setOptions({ errorsShape: 'list' });
		const list = await createWebhook({ name: 'x'.repeat(256), url: 42, events: ['scan.deleted'] });
		expect(list.body.errors.map((e: { field: string }) => e.field)).toEqual([
			'name',
			'url',
			'events',
		]);
		expect(
			(await createWebhook({ name: 'n', url: 'https://a.example.com', events: [] })).body.errors[0]
				.field,
		).toBe('events');
	});

	it('answers 422 for a body that is not JSON', async () => {
		const res = await fetch(`${sandbox.baseUrl}/webhooks`, {
			method: 'POST',
			headers: { Authorization: 'Bearer sk_test_sandbox_key', 'Content-Type': 'application/json' },
			body: '{not json',
		});
		expect(res.status).toBe(422);
		expect(Object.keys(((await res.json()) as Reply['body']).errors)).toEqual(['body']);
	});

	it.each([
		'http://hooks.example.com/x',
		'https://localhost/x',
		'https://api.localhost/x',
		'https://127.0.0.1/x',
		'https://127.1.2.3:8443/x',
		'https://10.0.0.5/x',
		'https://172.16.0.1/x',
		'https://172.31.255.255/x',
		'https://192.168.1.10/x',
		'https://[::1]/x',
		'https://[fd00::1]/x',
		'https://printer.local/x',
		'https://intranet/x',
		'ftp://hooks.example.com/x',
		'not a url',
	])('refuses %s by default', async (url) => {
		const reply = await createWebhook({ name: 'n', url, events: ['scan.completed'] });
		expect(reply.status).toBe(422);
		expect(Object.keys(reply.body.errors)).toEqual(['url']);
	});

	it.each([
		'https://hooks.example.com/x',
		'https://172.32.0.1/x',
		'https://8.8.8.8/x',
		'https://n8n.example.org:5678/webhook/abc',
	])('accepts the public https URL %s', async (url) => {
		expect((await createWebhook({ name: 'n', url, events: ['scan.completed'] })).status).toBe(201);
	});

	it('accepts http and loopback URLs with allowInsecureWebhookUrls, but still refuses non-http schemes', async () => {
		sandbox.control.setOptions({ allowInsecureWebhookUrls: true });
		expect(
			(
				await createWebhook({
					name: 'n',
					url: 'http://127.0.0.1:5678/webhook',
					events: ['scan.completed'],
				})
			).status,
		).toBe(201);
		expect(
			(await createWebhook({ name: 'n', url: 'http://localhost/x', events: ['scan.failed'] }))
				.status,
		).toBe(201);
		expect(
			(await createWebhook({ name: 'n', url: 'ftp://127.0.0.1/x', events: ['scan.failed'] }))
				.status,
		).toBe(422);
	});

	it('allows 10 webhooks per account and refuses the 11th', async () => {
		for (let i = 0; i < 10; i += 1) {
			expect(
				(
					await createWebhook({
						name: `h${i}`,
						url: 'https://hooks.example.com',
						events: ['scan.completed'],
					})
				).status,
			).toBe(201);
		}
		const eleventh = await createWebhook({
			name: 'h10',
			url: 'https://hooks.example.com',
			events: ['scan.completed'],
		});
		expect(eleventh.status).toBe(422);
		expect(Object.keys(eleventh.body.errors)).toEqual(['webhooks']);
	});

	it.each([
		['active', { active: true }],
		['status', { status: 'active' }],
	] as const)('shows activity as configured (activeFlag %s)', async (activeFlag, expected) => {
		sandbox.control.setOptions({ activeFlag, envelope: 'bare' });
		const created = (
			await createWebhook({ name: 'n', url: 'https://hooks.example.com', events: ['scan.failed'] })
		).body;
		expect(created).toMatchObject(expected);
		expect(created).not.toHaveProperty('is_active');
		sandbox.control.deactivateWebhook(created.id);
		const [listed] = (await api(sandbox, 'GET', '/webhooks')).body;
		expect(listed).toMatchObject(
			activeFlag === 'active' ? { active: false } : { status: 'inactive' },
		);
	});

	it('deletes a webhook: 200 {deleted, id}; afterwards 404 for delete and logs', async () => {
		const { id } = unwrap(
			(
				await createWebhook({
					name: 'n',
					url: 'https://hooks.example.com',
					events: ['scan.failed'],
				})
			).body,
		);
		const deleted = await api(sandbox, 'DELETE', `/webhooks/${id}`);
		expect(deleted.status).toBe(200);
		expect(deleted.body).toEqual({ data: { deleted: true, id } });
		expect((await api(sandbox, 'GET', '/webhooks')).body.data).toEqual([]);
		const again = await api(sandbox, 'DELETE', `/webhooks/${id}`);
		expect(again.status).toBe(404);
		expect(again.body.message).toMatch(new RegExp(`Webhook ${id}`));
		expect((await api(sandbox, 'GET', `/webhooks/${id}/logs`)).status).toBe(404);
	});

	it('answers 404 for a webhook of another account', async () => {
		const { id } = unwrap(
			(
				await createWebhook({
					name: 'n',
					url: 'https://hooks.example.com',
					events: ['scan.failed'],
				})
			).body,
		);
		sandbox.control.createAccount({ apiKeys: ['other'] });
		expect((await api(sandbox, 'DELETE', `/webhooks/${id}`, { key: 'other' })).status).toBe(404);
		expect((await api(sandbox, 'GET', '/webhooks', { key: 'other' })).body.data).toEqual([]);
	});
});

describe('deliveries', () => {
	it('posts a signed scan.completed delivery; the signature verifies with node:crypto', async () => {
		const r = await receiver(200);
		const hook = await hookTo(r.url);
		const { id } = unwrap((await postScan(sandbox, { filename: 'paid.pdf' })).body);
		const [delivery] = await sandbox.control.waitForDeliveries(1);
		expect(r.received).toHaveLength(1);
		const [request] = r.received;

		expect(request.method).toBe('POST');
		expect(request.url).toBe('/hook');
		expect(request.headers['content-type']).toBe('application/json');
		expect(request.headers['x-service-event']).toBe('scan.completed');
		expect(verify(hook.secret, request.rawBody, request.headers['x-service-signature'])).toBe(true);
		expect(verify('whsec_wrong', request.rawBody, request.headers['x-service-signature'])).toBe(
			false,
		);
		expect(request.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

		const body = JSON.parse(request.rawBody.toString('utf8'));
		expect(Object.keys(body)).toEqual(['event', 'timestamp', 'data']);
		expect(body.event).toBe('scan.completed');
		expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
		const scan = unwrap((await api(sandbox, 'GET', `/scans/${id}`)).body);
		expect(body.data).toEqual({
			scan_id: id,
			filename: 'paid.pdf',
			template_id: 1,
			status: 'completed',
			confidence: scan.confidence,
			extracted_data: scan.extracted_data,
			validation_errors: [],
			is_partial: false,
		});
		expect(delivery).toMatchObject({
			webhookId: hook.id,
			scanId: id,
			event: 'scan.completed',
			status: 200,
			success: true,
		});
		expect(delivery.body).toBe(request.rawBody.toString('utf8'));
	});

	it('sends scan.completed for validation_failed and scan.failed for failed scans, with their bodies', async () => {
		const r = await receiver(204);
		const hook = await hookTo(r.url);
		await postScan(sandbox, { filename: 'invalid.pdf' });
		await sandbox.control.waitForDeliveries(1);
		await postScan(sandbox, { filename: 'fail.pdf' });
		await sandbox.control.waitForDeliveries(2);
		const [completed, failed] = r.received.map((q) => JSON.parse(q.rawBody.toString('utf8')));
		expect(completed.data.status).toBe('validation_failed');
		expect(completed.data.validation_errors).toEqual([
			{ field: 'invoice_number', rule: 'required', message: expect.any(String) },
		]);
		expect(failed).toEqual({
			event: 'scan.failed',
			timestamp: expect.any(String),
			data: {
				scan_id: 2,
				filename: 'fail.pdf',
				template_id: 1,
				status: 'failed',
				error_message: expect.any(String),
			},
		});
		expect(r.received[1].headers['x-service-event']).toBe('scan.failed');
		expect(
			verify(hook.secret, r.received[1].rawBody, r.received[1].headers['x-service-signature']),
		).toBe(true);
	});

	it('delivers only subscribed events and logs every attempt, newest first', async () => {
		const r = await receiver(200);
		const onlyFailed = await hookTo(r.url, ['scan.failed']);
		const ok = unwrap((await postScan(sandbox, { filename: 'fine.pdf' })).body);
		await waitForStatus(sandbox, ok.id, ['completed']);
		const bad = unwrap((await postScan(sandbox, { filename: 'fail-1.pdf' })).body);
		await sandbox.control.waitForDeliveries(1);
		const bad2 = unwrap((await postScan(sandbox, { filename: 'fail-2.pdf' })).body);
		await sandbox.control.waitForDeliveries(2);
		expect(r.received.map((q) => q.headers['x-service-event'])).toEqual([
			'scan.failed',
			'scan.failed',
		]);

		const logs = (await api(sandbox, 'GET', `/webhooks/${onlyFailed.id}/logs`)).body.data;
		expect(logs).toHaveLength(2);
		expect(logs[0]).toEqual({
			id: expect.any(Number),
			webhook_id: onlyFailed.id,
			scan_id: bad2.id,
			event: 'scan.failed',
			url: r.url,
			status_code: 200,
			success: true,
			error: null,
			duration_ms: expect.any(Number),
			attempt: 1,
			created_at: expect.stringMatching(/\+00:00$/),
		});
		expect(logs[1].scan_id).toBe(bad.id);
		const [listed] = (await api(sandbox, 'GET', '/webhooks')).body.data;
		expect(listed.last_delivery_at).toEqual(expect.stringMatching(/\+00:00$/));
	});

	it('deactivates a webhook after exactly 10 failures in a row and then stops delivering to it', async () => {
		const failing = await receiver(500);
		const healthy = await receiver(200);
		const dead = await hookTo(failing.url, ['scan.completed']);
		await hookTo(healthy.url, ['scan.completed']);

		const uploadAndWait = async (n: number) => {
			await postScan(sandbox);
			await sandbox.control.waitForDeliveries(2 * n);
		};
		for (let n = 1; n <= 9; n += 1) await uploadAndWait(n);
		expect(sandbox.control.getWebhook(dead.id)).toMatchObject({ active: true, failureCount: 9 });

		await uploadAndWait(10);
		expect(sandbox.control.getWebhook(dead.id)).toMatchObject({ active: false, failureCount: 10 });
		const listed = (await api(sandbox, 'GET', '/webhooks')).body.data.find(
			(w: { id: number }) => w.id === dead.id,
		);
		expect(listed).toMatchObject({ is_active: false, failure_count: 10 });

		await postScan(sandbox);
		await sandbox.control.waitForDeliveries(21); // only the healthy webhook receives the 11th
		await sleep(50);
		expect(failing.received).toHaveLength(10);
		expect(healthy.received).toHaveLength(11);

		const logs = (await api(sandbox, 'GET', `/webhooks/${dead.id}/logs`)).body.data;
		expect(logs).toHaveLength(10);
		expect(
			logs.every(
				(l: { success: boolean; status_code: number }) => !l.success && l.status_code === 500,
			),
		).toBe(true);
		await expect(sandbox.control.deliver(dead.id, 'scan.completed')).rejects.toThrow(/inactive/);
	});

	it('resets the failure count on a 2xx reply', async () => {
		const r = await receiver(500);
		const hook = await hookTo(r.url, ['scan.completed']);
		for (let i = 1; i <= 3; i += 1) await sandbox.control.deliver(hook.id, 'scan.completed');
		expect(sandbox.control.getWebhook(hook.id)?.failureCount).toBe(3);
		r.respondWith = 202;
		const success = await sandbox.control.deliver(hook.id, 'scan.completed');
		expect(success).toMatchObject({ status: 202, success: true, scanId: 0 });
		expect(sandbox.control.getWebhook(hook.id)?.failureCount).toBe(0);
	});

	it('counts a reply slower than deliveryTimeoutMs and a refused connection as failures', async () => {
		sandbox.control.setOptions({ deliveryTimeoutMs: 100 });
		const slow = await receiver('hang');
		const hook = await hookTo(slow.url, ['scan.failed']);
		const timedOut = await sandbox.control.deliver(hook.id, 'scan.failed');
		expect(timedOut).toMatchObject({ success: false, error: expect.stringMatching(/100 ms/) });
		expect(timedOut.status).toBeUndefined();

		const closed = await receiver(200);
		const gone = await hookTo(closed.url, ['scan.failed']);
		await closed.close();
		const refused = await sandbox.control.deliver(gone.id, 'scan.failed');
		expect(refused.success).toBe(false);
		expect(refused.error).toMatch(/ECONNREFUSED/);
		const [log] = (await api(sandbox, 'GET', `/webhooks/${gone.id}/logs`)).body.data;
		expect(log).toMatchObject({
			success: false,
			status_code: null,
			error: expect.stringMatching(/ECONNREFUSED/),
		});
	});

	it('does not deliver to a webhook deleted on the server side', async () => {
		const r = await receiver(200);
		const hook = await hookTo(r.url);
		expect(sandbox.control.deleteWebhookDirect(hook.id)).toBe(true);
		const { id } = unwrap((await postScan(sandbox)).body);
		await waitForStatus(sandbox, id, ['completed']);
		await sleep(50);
		expect(r.received).toHaveLength(0);
	});

	it('close() aborts deliveries in flight and resolves promptly', async () => {
		const hanging = await receiver('hang');
		const own = await startSandbox({ processingDelayMs: 5, allowInsecureWebhookUrls: true });
		const created = await fetch(`${own.baseUrl}/webhooks`, {
			method: 'POST',
			headers: { Authorization: 'Bearer sk_test_sandbox_key', 'Content-Type': 'application/json' },
			body: JSON.stringify({ name: 'n', url: hanging.url, events: ['scan.completed'] }),
		});
		expect(created.status).toBe(201);
		await postScan(own);
		const deadline = Date.now() + 15_000;
		while (hanging.received.length === 0 && Date.now() < deadline) await sleep(5);
		expect(hanging.received).toHaveLength(1);
		const started = Date.now();
		await own.close();
		// Not waiting for the delivery timeout (10 s): a bound a busy machine does not reach.
		expect(Date.now() - started).toBeLessThan(5_000);
	});
});
