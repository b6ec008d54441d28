/**
 * The sandbox playing a service that redelivers (issue 25, section 4): a recorded delivery sent
 * again with the same bytes and headers, or restamped and signed again, one copy or several at
 * the same moment; in process and through the control surface.
 */
import { createHmac } from 'node:crypto';

import { Sandbox, startSandbox } from '../../sandbox/server';
import { api, postScan, unwrap } from '../support/sandbox-api';
import { WebhookConsumer, startConsumer } from '../support/webhook-consumer';

let sandbox: Sandbox;
let consumer: WebhookConsumer;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 10, allowInsecureWebhookUrls: true });
	consumer = await startConsumer(200);
});
afterAll(async () => {
	await sandbox.close();
	await consumer.close();
});
beforeEach(() => {
	sandbox.control.reset();
	consumer.respondWith = 200;
	consumer.received.splice(0);
});

async function hook(): Promise<{ id: number; secret: string }> {
	const reply = await api(sandbox, 'POST', '/webhooks', {
		json: { name: 'repeats', url: consumer.url, events: ['scan.completed', 'scan.failed'] },
	});
	return unwrap(reply.body);
}

const signed = (secret: string, raw: Buffer | string) =>
	`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

async function control(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
	const origin = new URL(sandbox.baseUrl).origin;
	const res = await fetch(`${origin}/__sandbox${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return { status: res.status, body: await res.json() };
}

describe('repeatDelivery', () => {
	it('sends the last delivery again with the same bytes and headers, as attempt 2', async () => {
		const { id } = await hook();
		await postScan(sandbox, { filename: 'invoice.pdf' });
		const [first] = await sandbox.control.waitForDeliveries(1);
		const [again] = await sandbox.control.repeatDelivery();

		expect(again).toMatchObject({ webhookId: id, success: true, repeatOf: 0, attempt: 2 });
		expect(again.body).toBe(first.body);
		expect(again.headers).toEqual(first.headers);
		expect(consumer.received).toHaveLength(2);
		expect(consumer.received[1].rawBody.equals(consumer.received[0].rawBody)).toBe(true);
		expect(consumer.received[1].headers['x-service-signature']).toBe(
			consumer.received[0].headers['x-service-signature'],
		);
		const logs = (await api(sandbox, 'GET', `/webhooks/${id}/logs`)).body.data;
		expect(logs.map((l: { attempt: number }) => l.attempt)).toEqual([2, 1]);
	});

	it('restamp: the same event and data with a new timestamp, signed again over the new bytes', async () => {
		const { id, secret } = await hook();
		const [original] = [await sandbox.control.deliver(id, 'scan.failed')];
		sandbox.control.advanceClock(90_000);
		const [again] = await sandbox.control.repeatDelivery({ restamp: true });

		const before = JSON.parse(original.body);
		const after = JSON.parse(again.body);
		expect(after.timestamp).not.toBe(before.timestamp);
		expect({ ...after, timestamp: null }).toEqual({ ...before, timestamp: null });
		expect(Object.keys(after)).toEqual(Object.keys(before));
		expect(again.headers['X-Service-Signature']).toBe(signed(secret, again.body));
		expect(consumer.received[1].headers['x-service-signature']).toBe(
			signed(secret, consumer.received[1].rawBody),
		);
	});

	it('copies arrive at the same moment, each counted; an older delivery is chosen by index', async () => {
		const { id } = await hook();
		await sandbox.control.deliver(id, 'scan.completed');
		await sandbox.control.deliver(id, 'scan.failed');
		consumer.respondWith = 500;
		const copies = await sandbox.control.repeatDelivery({ index: 0, copies: 3 });

		expect(copies).toHaveLength(3);
		expect(copies.every((c) => c.event === 'scan.completed' && c.repeatOf === 0)).toBe(true);
		expect(sandbox.control.getWebhook(id)?.failureCount).toBe(3);
		expect(sandbox.control.deliveries()).toHaveLength(5);
	});

	it('through the control surface: POST /__sandbox/deliveries/repeat, and clear errors', async () => {
		const { id } = await hook();
		await sandbox.control.deliver(id, 'scan.completed');
		const reply = await control('/deliveries/repeat', { restamp: true, copies: 2 });
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual([
			expect.objectContaining({ repeatOf: 0, attempt: 2, success: true }),
			expect.objectContaining({ repeatOf: 0, attempt: 2, success: true }),
		]);

		expect((await control('/deliveries/repeat', { index: 7 })).body).toMatchObject({
			error: expect.any(String),
			message: expect.stringMatching(/No delivery 7/),
		});
		expect((await control('/deliveries/repeat', { copies: 0 })).status).toBe(400);
		sandbox.control.clearDeliveries();
		await expect(sandbox.control.repeatDelivery()).rejects.toThrow(/recorded delivery/);
	});
});
