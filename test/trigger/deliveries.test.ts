/**
 * Deliveries to the Document Scanning Trigger: signed by the sandbox (real uploads and
 * control.deliver) or crafted here, received over HTTP and handed to the node's webhook()
 * in n8n-core's WebhookContext.
 */

import type { IDataObject } from 'n8n-workflow';

import { isoWithOffset } from '../../sandbox/engine/clock';
import { DEFAULT_API_KEY, type Sandbox } from '../../sandbox/server';
import { signatureHeader } from '../../sandbox/signing';
import { type Receiver, startReceiver } from '../support/receiver';
import { type TriggerHarness, type WebhookCallResult } from '../support/trigger-harness';
import {
	asItem,
	itemsOf,
	keyOf,
	makeHarness,
	nodeStatic,
	postRaw,
	useTriggerStack,
} from './helpers';
import { ALL_EVENTS } from '../support/fixtures';
import { uploadScan } from '../support/sandbox-api';

let sandbox: Sandbox;
let receiver: Receiver;
let current: TriggerHarness;
/** Every item any test saw emitted, checked for secrets at the end. */
const emitted: IDataObject[] = [];
const secrets = new Set<string>([DEFAULT_API_KEY]);

useTriggerStack(
	() => current,
	(started) => ({ sandbox, receiver } = started),
);
afterEach(() => {
	for (const result of receiver.results) emitted.push(...itemsOf(result));
});

async function activate(
	events: string[] = ALL_EVENTS,
): Promise<{ id: number; secret: string; url: string }> {
	current = await makeHarness(sandbox, receiver.baseUrl, { events });
	await current.activate();
	const stored = nodeStatic(current);
	secrets.add(String(stored.webhookSecret));
	return {
		id: stored.webhookId as number,
		secret: String(stored.webhookSecret),
		url: current.webhookUrl(),
	};
}

async function lastResult(count = 1): Promise<WebhookCallResult> {
	const results = await receiver.waitFor(count);
	return results[count - 1];
}

describe('deliveries signed by the service', () => {
	it('an uploaded scan that completes starts one execution whose item is the delivery body', async () => {
		const { id } = await activate();
		const scanId = await uploadScan(sandbox, 'invoice-42.pdf');
		const [delivery] = await sandbox.control.waitForDeliveries(1);
		const result = await lastResult();

		expect(delivery).toMatchObject({
			webhookId: id,
			event: 'scan.completed',
			success: true,
			status: 200,
		});
		expect(result.status).toBe(200);
		const items = itemsOf(result);
		expect(items).toHaveLength(1);
		expect(items[0]).toEqual(asItem(delivery.body));
		expect(items[0]).toMatchObject({
			event: 'scan.completed',
			timestamp: expect.any(String),
			data: { scan_id: scanId, status: 'completed', template_id: 1, filename: 'invoice-42.pdf' },
		});
	});

	it('a failed scan sends scan.failed: event, timestamp and data.scan_id reach the workflow', async () => {
		await activate();
		const scanId = await uploadScan(sandbox, 'will-fail.pdf');
		const [delivery] = await sandbox.control.waitForDeliveries(1);
		const items = itemsOf(await lastResult());
		expect(delivery.event).toBe('scan.failed');
		expect(items).toEqual([asItem(delivery.body)]);
		expect(items[0]).toMatchObject({
			event: 'scan.failed',
			timestamp: expect.any(String),
			data: { scan_id: scanId },
		});
	});

	it('control.deliver (sample scan) is verified too', async () => {
		const { id } = await activate();
		const record = await sandbox.control.deliver(id, 'scan.completed');
		expect(record.success).toBe(true);
		expect(itemsOf(await lastResult())).toEqual([asItem(record.body)]);
	});

	it('an event the node is not subscribed to: 200 and no execution', async () => {
		const { id } = await activate(['scan.completed']);
		const record = await sandbox.control.deliver(id, 'scan.failed');
		const result = await lastResult();
		expect(record.success).toBe(true);
		expect(result.status).toBe(200);
		expect(result.workflowData).toBeUndefined();
		expect(result.body).toMatchObject({ ignored: expect.stringContaining('scan.failed') });

		// The subscribed one still runs.
		await sandbox.control.deliver(id, 'scan.completed');
		expect(itemsOf(await lastResult(2))).toHaveLength(1);
	});

	it('no secret held (static data lost): 401, no execution, no request to the service, which counts a failure', async () => {
		const { id } = await activate();
		sandbox.control.clearRequests();
		current = await makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS }, {});
		const record = await sandbox.control.deliver(id, 'scan.completed');
		const result = await lastResult();
		expect(record.status).toBe(401);
		expect(result.status).toBe(401);
		expect(result.workflowData).toBeUndefined();
		expect(sandbox.control.getWebhook(id)?.failureCount).toBe(1);
		expect(sandbox.control.requests()).toEqual([]);
	});
});

describe('crafted deliveries', () => {
	/** Stamped now, per test: the replay tolerance (default 300 s) refuses stale deliveries. */
	let now: string;
	let body: string;
	beforeEach(() => {
		now = isoWithOffset(Date.now());
		body = JSON.stringify({
			event: 'scan.completed',
			timestamp: now,
			data: {
				scan_id: 7,
				filename: 'a.pdf',
				template_id: 1,
				status: 'completed',
				confidence: 90,
				extracted_data: { total_amount: 10 },
				validation_errors: [],
				is_partial: false,
			},
		});
	});

	async function send(
		raw: string | Buffer,
		signature: string | undefined,
		event = 'scan.completed',
	) {
		const headers: Record<string, string> = { 'X-Service-Event': event };
		if (signature !== undefined) headers['X-Service-Signature'] = signature;
		return await postRaw(current.webhookUrl(), raw, headers);
	}

	const forged: Array<
		[string, (secret: string) => { raw: string; signature: string | undefined }]
	> = [
		['no signature header', () => ({ raw: body, signature: undefined })],
		['an empty signature', () => ({ raw: body, signature: '' })],
		[
			'a wrong prefix (sha1=)',
			(s) => ({ raw: body, signature: signatureHeader(s, body).replace('sha256=', 'sha1=') }),
		],
		[
			'no prefix',
			(s) => ({ raw: body, signature: signatureHeader(s, body).slice('sha256='.length) }),
		],
		[
			'uppercase hex',
			(s) => ({
				raw: body,
				signature: `sha256=${signatureHeader(s, body).slice(7).toUpperCase()}`,
			}),
		],
		[
			'a truncated signature',
			(s) => ({ raw: body, signature: signatureHeader(s, body).slice(0, -2) }),
		],
		[
			'a signature with an extra digit',
			(s) => ({ raw: body, signature: `${signatureHeader(s, body)}0` }),
		],
		[
			'non-hex characters',
			(s) => ({ raw: body, signature: `${signatureHeader(s, body).slice(0, -1)}g` }),
		],
		[
			'a wrong secret',
			() => ({
				raw: body,
				signature: signatureHeader('whsec_00000000000000000000000000000000', body),
			}),
		],
		[
			'a tampered body',
			(s) => ({
				raw: body.replace('"scan_id":7', '"scan_id":8'),
				signature: signatureHeader(s, body),
			}),
		],
		[
			'the body re-serialized with other spacing',
			(s) => ({
				raw: JSON.stringify(JSON.parse(body), null, 2),
				signature: signatureHeader(s, body),
			}),
		],
		[
			'the body re-serialized with other key order',
			(s) => {
				const parsed = JSON.parse(body) as IDataObject;
				return {
					raw: JSON.stringify({
						data: parsed.data,
						timestamp: parsed.timestamp,
						event: parsed.event,
					}),
					signature: signatureHeader(s, body),
				};
			},
		],
	];

	it.each(forged)('rejects %s with 401 and starts nothing', async (_label, make) => {
		const { secret } = await activate();
		const { raw, signature } = make(secret);
		const reply = await send(raw, signature);
		const result = await lastResult();
		expect(reply.status).toBe(401);
		expect(result.status).toBe(401);
		expect(result.workflowData).toBeUndefined();
		expect(JSON.stringify(reply.body)).not.toContain(secret);

		// Control: the genuine delivery passes, so the 401 above came from the forgery.
		const genuine = await send(body, signatureHeader(secret, body));
		expect(genuine.status).toBe(200);
		expect(itemsOf(await lastResult(2))).toEqual([asItem(body)]);
	});

	it('rejects when the webhook server kept no raw body (never falls back to re-serialized JSON)', async () => {
		const { secret } = await activate();
		const noRaw = await startReceiver(() => current, { keepRawBody: false });
		try {
			const url = current.webhookUrl().replace(receiver.baseUrl, noRaw.baseUrl);
			const reply = await postRaw(url, body, {
				'X-Service-Signature': signatureHeader(secret, body),
			});
			expect(reply.status).toBe(401);
			expect(noRaw.results[0].workflowData).toBeUndefined();
			expect(JSON.stringify(reply.body)).toMatch(/raw request body/);
		} finally {
			await noRaw.close();
		}
	});

	it('accepts valid deliveries with non-canonical JSON (spacing, \\u escapes, large numbers)', async () => {
		const { secret } = await activate();
		const raw =
			`{ "event" : "scan.completed",\n  "timestamp":"${now}", "data": {"scan_id": 12345678901234567890, ` +
			'"filename": "factur\\u00e9.pdf", "template_id": 1, "status": "completed", "extracted_data": {"supplier_name": "Caf\\u00e9 M\\u00fcller"} } }';
		const reply = await send(raw, signatureHeader(secret, raw));
		const items = itemsOf(await lastResult());
		expect(reply.status).toBe(200);
		expect(items).toHaveLength(1);
		// A scan ID JSON cannot read exactly names no scan: the key is the body's digest.
		expect(items[0]).toEqual({
			...asItem(raw),
			deliveryKey: keyOf(JSON.parse(raw) as IDataObject),
		});
		expect(items[0].deliveryKey).toMatch(/^sha256:[0-9a-f]{16}$/);
		expect((items[0].data as IDataObject).filename).toBe('facturé.pdf');
		expect((items[0].data as IDataObject).scan_id).toBe(12345678901234567890);
	});

	it('the signed body decides the event, not the unsigned X-Service-Event header', async () => {
		const { secret } = await activate(['scan.completed']);
		const failed = JSON.stringify({ event: 'scan.failed', timestamp: now, data: { scan_id: 3 } });
		const reply = await send(failed, signatureHeader(secret, failed), 'scan.completed');
		const result = await lastResult();
		expect(reply.status).toBe(200);
		expect(result.workflowData).toBeUndefined();
	});

	it('a signed body that is not a JSON object: 400, no execution', async () => {
		const { secret } = await activate();
		const raw = 'not json';
		const reply = await send(raw, signatureHeader(secret, raw));
		expect(reply.status).toBe(400);
		expect((await lastResult()).workflowData).toBeUndefined();
	});

	it('an unknown event kind is ignored with 200', async () => {
		const { secret } = await activate();
		const raw = JSON.stringify({ event: 'scan.deleted', timestamp: now, data: { scan_id: 1 } });
		const reply = await send(raw, signatureHeader(secret, raw), 'scan.deleted');
		expect(reply.status).toBe(200);
		expect((await lastResult()).workflowData).toBeUndefined();
	});
});

describe('secrets', () => {
	it('no emitted item of this file contains the signing secret or the API key', () => {
		expect(emitted.length).toBeGreaterThan(5);
		expect(secrets.size).toBeGreaterThan(1);
		const text = JSON.stringify(emitted);
		for (const secret of secrets) expect(text).not.toContain(secret);
	});
});
