/**
 * The trust edges of the Document Scanning Trigger (issue 8, "Trigger"): the event comes only
 * from the signed bytes, late deliveries start nothing and cost the webhook nothing (replay tolerance), "Include Full Scan"
 * requests only `/scans/<positive integer>` with the exact signed digits, every answer is short
 * JSON, and a request without `rawBody` is read through `req.readRawBody()`.
 *
 * Deliveries are crafted and signed here with the webhook's real secret, or sent by the sandbox,
 * and go over HTTP to a receiver that hands them to the node in n8n-core's WebhookContext.
 * Timestamps are built relative to the clock with margins of minutes: no sleeps.
 */

import { WebhookContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { isoWithOffset } from '../../sandbox/engine/clock';
import { type Sandbox } from '../../sandbox/server';
import { signatureHeader } from '../../sandbox/signing';
import { type Receiver, startReceiver } from '../support/receiver';
import { type TriggerHarness } from '../support/trigger-harness';
import { asItem, itemsOf, makeHarness, nodeStatic, useTriggerStack } from './helpers';
import { ALL_EVENTS } from '../support/fixtures';

const MINUTE = 60_000;

let sandbox: Sandbox;
let receiver: Receiver;
let current: TriggerHarness;
let secret: string;
let hookId: number;

useTriggerStack(
	() => current,
	(started) => ({ sandbox, receiver } = started),
);

async function activate(options: IDataObject = {}, events: string[] = ALL_EVENTS): Promise<void> {
	current = await makeHarness(sandbox, receiver.baseUrl, { events, options } as never);
	await current.activate();
	const stored = nodeStatic(current);
	secret = String(stored.webhookSecret);
	hookId = stored.webhookId as number;
}

/** A scan.completed body stamped `offsetMs` from now (ISO 8601 with offset, as the service does). */
function bodyAt(
	offsetMs = 0,
	data: IDataObject = { scan_id: 7, template_id: 1, status: 'completed' },
): IDataObject {
	return { event: 'scan.completed', timestamp: isoWithOffset(Date.now() + offsetMs), data };
}

interface Reply {
	status: number;
	contentType: string;
	text: string;
}

/** POSTs raw bytes signed with the webhook's secret; `headerEvent` plays the unsigned header. */
async function post(
	raw: string,
	{ headerEvent = 'scan.completed', url = current.webhookUrl() } = {},
): Promise<Reply> {
	const res = await fetch(url, {
		method: 'POST',
		headers: {
			'Content-Type': 'application/json',
			'X-Service-Event': headerEvent,
			'X-Service-Signature': signatureHeader(secret, raw),
		},
		body: raw,
	});
	return {
		status: res.status,
		contentType: res.headers.get('content-type') ?? '',
		text: await res.text(),
	};
}

/** Sends one signed delivery and returns the HTTP reply plus what the node handed to n8n. */
async function deliver(raw: string, options: { headerEvent?: string } = {}) {
	const before = receiver.results.length;
	const reply = await post(raw, options);
	const results = await receiver.waitFor(before + 1);
	return { reply, result: results[before] };
}

describe('the event comes from the signed body only', () => {
	it.each([
		['no event', { timestamp: 'now', data: { scan_id: 3 } }],
		['a numeric event', { event: 5, timestamp: 'now', data: { scan_id: 3 } }],
		[
			'an event object',
			{ event: { name: 'scan.completed' }, timestamp: 'now', data: { scan_id: 3 } },
		],
		['an empty event', { event: '', timestamp: 'now', data: { scan_id: 3 } }],
	])(
		'a signed body with %s starts nothing, whatever X-Service-Event says',
		async (_label, shape) => {
			await activate();
			const raw = JSON.stringify({ ...shape, timestamp: isoWithOffset(Date.now()) });
			const { reply, result } = await deliver(raw, { headerEvent: 'scan.completed' });
			expect(result.workflowData).toBeUndefined();
			expect(reply.status).toBe(400);
			expect(JSON.parse(reply.text)).toMatchObject({
				error: 'missing_event',
				message: expect.stringContaining('names no event'),
			});
		},
	);

	it('control: the same body with a signed event starts the workflow', async () => {
		await activate();
		const raw = JSON.stringify(bodyAt());
		const { reply, result } = await deliver(raw, { headerEvent: 'scan.failed' });
		expect(reply.status).toBe(200);
		expect(itemsOf(result)).toEqual([asItem(raw)]);
	});
});

/** n8n's log of the webhook context while `run` runs: every warning's text. */
async function warningsOf(run: () => Promise<void>): Promise<string[]> {
	const warn = jest.fn();
	const spy = jest
		.spyOn(WebhookContext.prototype, 'logger', 'get')
		.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
	try {
		await run();
	} finally {
		spy.mockRestore();
	}
	return warn.mock.calls.map((call) => String(call[0]));
}

describe('replay tolerance (node version 1: 300 s)', () => {
	it.each([
		['10 minutes old', -10 * MINUTE, 'past'],
		['10 minutes in the future', 10 * MINUTE, 'future'],
		['an hour old', -60 * MINUTE, 'past'],
	])(
		'a genuine, signed delivery stamped %s is late: 200 {received, late}, nothing starts, a warning names event, scan and skew',
		async (_label, offset, direction) => {
			await activate();
			let sent: Awaited<ReturnType<typeof deliver>> | undefined;
			const warnings = await warningsOf(async () => {
				sent = await deliver(JSON.stringify(bodyAt(offset)));
			});
			const { reply, result } = sent!;
			expect(result.workflowData).toBeUndefined();
			expect(reply.status).toBe(200);
			expect(reply.contentType).toMatch(/application\/json/);
			expect(JSON.parse(reply.text)).toEqual({ received: true, late: true });
			expect(warnings).toHaveLength(1);
			expect(warnings[0]).toMatch(/scan\.completed of scan 7 started no execution/);
			expect(warnings[0]).toMatch(/tolerance of 300 s .*clock/);
			expect(warnings[0]).toMatch(/Scan → Get/);
			const skew = /(\d+) s in the (past|future)/.exec(warnings[0]);
			expect(skew?.[2]).toBe(direction);
			expect(Math.abs(Number(skew?.[1]) - Math.abs(offset) / 1000)).toBeLessThan(60);
		},
	);

	it.each([
		['stamped 2020', JSON.stringify({ ...bodyAt(), timestamp: '2020-01-01T00:00:00+00:00' })],
		['without timestamp', JSON.stringify({ event: 'scan.completed', data: { scan_id: 7 } })],
		[
			'with a numeric timestamp',
			JSON.stringify({ ...bodyAt(), timestamp: Math.floor(Date.now() / 1000) }),
		],
		[
			'with a timestamp without offset',
			JSON.stringify({ ...bodyAt(), timestamp: isoWithOffset(Date.now()).replace('+00:00', '') }),
		],
		[
			'with an impossible date',
			JSON.stringify({ ...bodyAt(), timestamp: '2026-02-30T12:00:00+00:00' }),
		],
	])('a delivery %s starts nothing and is answered 200 as late', async (_label, raw) => {
		await activate();
		const { reply, result } = await deliver(raw);
		expect(result.workflowData).toBeUndefined();
		expect(reply.status).toBe(200);
		expect(JSON.parse(reply.text)).toEqual({ received: true, late: true });
	});

	it.each([
		['1 minute old', -MINUTE],
		['1 minute ahead', MINUTE],
	])('accepts a delivery %s', async (_label, offset) => {
		await activate();
		const raw = JSON.stringify(bodyAt(offset));
		const { reply, result } = await deliver(raw);
		expect(reply.status).toBe(200);
		expect(itemsOf(result)).toEqual([asItem(raw)]);
	});

	it('reads other offsets: 10 minutes old written as +02:00 is late, now written as -05:30 is accepted', async () => {
		await activate();
		const shifted = (ms: number, sign: 1 | -1, hours: number, minutes: number): string => {
			const offsetMs = sign * (hours * 60 + minutes) * MINUTE;
			const local = new Date(ms + offsetMs).toISOString().replace(/\.\d{3}Z$/, '');
			const pad = (n: number) => String(n).padStart(2, '0');
			return `${local}${sign > 0 ? '+' : '-'}${pad(hours)}:${pad(minutes)}`;
		};
		const stale = JSON.stringify({
			...bodyAt(),
			timestamp: shifted(Date.now() - 10 * MINUTE, 1, 2, 0),
		});
		expect((await deliver(stale)).result.workflowData).toBeUndefined();
		const fresh = JSON.stringify({ ...bodyAt(), timestamp: shifted(Date.now(), -1, 5, 30) });
		const ok = await deliver(fresh);
		expect(ok.reply.status).toBe(200);
		expect(itemsOf(ok.result)).toHaveLength(1);
	});

	it('Replay Tolerance 0 turns the check off', async () => {
		await activate({ replayTolerance: 0 });
		const raw = JSON.stringify({ ...bodyAt(), timestamp: '2020-01-01T00:00:00+00:00' });
		const { reply, result } = await deliver(raw);
		expect(reply.status).toBe(200);
		expect(itemsOf(result)).toEqual([asItem(raw)]);
	});

	it('a wider tolerance (3600 s) accepts 10 minutes; 2 hours is late', async () => {
		await activate({ replayTolerance: 3600 });
		expect(itemsOf((await deliver(JSON.stringify(bodyAt(-10 * MINUTE)))).result)).toHaveLength(1);
		// Another scan: a repeat of the first would be answered 200 as a known delivery.
		const other = { scan_id: 8, template_id: 1, status: 'completed' };
		const late = await deliver(JSON.stringify(bodyAt(-120 * MINUTE, other)));
		expect(JSON.parse(late.reply.text)).toEqual({ received: true, late: true });
	});

	it('the service counts no failure: a delivery stamped by a clock 10 minutes ahead is logged as a success, the webhook stays', async () => {
		await activate();
		sandbox.control.advanceClock(10 * MINUTE);
		const [scanId] = sandbox.control.seedScans({
			count: 1,
			status: 'completed' as never,
			template_id: 1,
		});
		for (let i = 0; i < 12; i++) {
			const record = await sandbox.control.deliver(hookId, 'scan.completed', scanId);
			expect(record).toMatchObject({ status: 200, success: true });
		}
		const results = await receiver.waitFor(12);
		expect(results.every((result) => result.workflowData === undefined)).toBe(true);
		expect(sandbox.control.getWebhook(hookId)).toMatchObject({ active: true, failureCount: 0 });

		// With the clocks agreeing again the next delivery runs.
		sandbox.control.advanceClock(-10 * MINUTE);
		const next = await sandbox.control.deliver(hookId, 'scan.completed', scanId);
		expect(next).toMatchObject({ status: 200, success: true });
		expect(itemsOf((await receiver.waitFor(13))[12])).toEqual([asItem(next.body)]);
	});
});

describe('replay tolerance (node version 1.1: 3600 s without the option)', () => {
	it('10 minutes late runs; 2 hours late is answered 200 as late', async () => {
		current = await makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS }, undefined, 1.1);
		await current.activate();
		secret = String(nodeStatic(current).webhookSecret);
		expect(itemsOf((await deliver(JSON.stringify(bodyAt(-10 * MINUTE)))).result)).toHaveLength(1);
		const other = { scan_id: 8, template_id: 1, status: 'completed' };
		const late = await deliver(JSON.stringify(bodyAt(-120 * MINUTE, other)));
		expect(late.result.workflowData).toBeUndefined();
		expect(JSON.parse(late.reply.text)).toEqual({ received: true, late: true });
	});
});

describe('Include Full Scan: only /scans/<positive integer>, never a rounded one', () => {
	/** The API requests the sandbox logged after activation. */
	function apiRequests() {
		return sandbox.control.requests().filter((r) => r.method === 'GET');
	}

	it.each([
		['".."', '".."'],
		['"../account"', '"../account"'],
		['0', '0'],
		['-1', '-1'],
		['1.5', '1.5'],
		['"12a"', '"12a"'],
		['"007"', '"007"'],
		['" 7"', '" 7"'],
		['true', 'true'],
		['an object', '{"id": 7}'],
		['null', 'null'],
	])('scan_id %s: no request, the item carries fetchError', async (_label, literal) => {
		await activate({ includeFullScan: true });
		sandbox.control.clearRequests();
		const raw = `{"event":"scan.completed","timestamp":"${isoWithOffset(Date.now())}","data":{"scan_id":${literal},"status":"completed"}}`;
		const { reply, result } = await deliver(raw);
		expect(reply.status).toBe(200);
		expect(JSON.parse(reply.text)).toEqual({ received: true });
		const [item] = itemsOf(result);
		expect(item.scan).toBeUndefined();
		expect(item.fetchError).toMatch(/scan_id/);
		expect(apiRequests()).toEqual([]);
	});

	it('12345678901234567890 as a number is refused (JSON reads it as …7000), as a string it is requested exactly', async () => {
		await activate({ includeFullScan: true });
		sandbox.control.clearRequests();
		const raw = (id: string) =>
			`{"event":"scan.completed","timestamp":"${isoWithOffset(Date.now())}","data":{"scan_id": ${id},"status":"completed"}}`;
		const [number] = itemsOf((await deliver(raw('12345678901234567890'))).result);
		expect(number.fetchError).toMatch(
			/data\.scan_id of the delivery is too large to be read exactly/,
		);
		expect(apiRequests()).toEqual([]);
		const [text] = itemsOf((await deliver(raw('"12345678901234567890"'))).result);
		expect(apiRequests().map((r) => r.path)).toEqual(['/scans/12345678901234567890']);
		// The sandbox holds no such scan: the 404 is reported, the delivery still runs.
		expect(text.fetchError).toEqual(expect.any(String));
		expect(text.event).toBe('scan.completed');
	});

	it('the last of two scan_id keys counts, as in JSON.parse; a digit string is accepted', async () => {
		await activate({ includeFullScan: true });
		const [scanId] = sandbox.control.seedScans({
			count: 1,
			status: 'completed' as never,
			template_id: 1,
		});
		sandbox.control.clearRequests();
		const raw = `{"event":"scan.completed","timestamp":"${isoWithOffset(Date.now())}","data":{"scan_id":"..","note":"a \\"scan_id\\": 1 in text","scan_id":"${scanId}"}}`;
		const [item] = itemsOf((await deliver(raw)).result);
		expect(apiRequests().map((r) => r.path)).toEqual([`/scans/${scanId}`]);
		expect(item.scan).toMatchObject({ id: scanId, status: 'completed' });
		expect(item.fetchError).toBeUndefined();
	});
});

describe('the answer to a delivery is short JSON on every path', () => {
	it('a delivery that starts the workflow: {"received":true}', async () => {
		await activate();
		const { reply, result } = await deliver(JSON.stringify(bodyAt()));
		expect(itemsOf(result)).toHaveLength(1);
		expect(reply.status).toBe(200);
		expect(reply.contentType).toMatch(/application\/json/);
		expect(JSON.parse(reply.text)).toEqual({ received: true });
	});

	it('with Include Full Scan and with Split Into Table Rows: the same answer', async () => {
		await activate({ includeFullScan: true, splitIntoRows: true });
		const [scanId] = sandbox.control.seedScans({
			count: 1,
			status: 'completed' as never,
			template_id: 2,
		});
		const record = await sandbox.control.deliver(hookId, 'scan.completed', scanId);
		const [result] = await receiver.waitFor(1);
		expect(itemsOf(result).length).toBeGreaterThanOrEqual(2);
		expect(record.status).toBe(200);
		expect(result.body).toEqual({ received: true });
	});

	it('an ignored delivery: {"received":true, "ignored": …}; refusals: {"error": …}', async () => {
		await activate({}, ['scan.completed']);
		const ignored = await deliver(JSON.stringify({ ...bodyAt(), event: 'scan.failed' }));
		expect(ignored.reply.status).toBe(200);
		expect(JSON.parse(ignored.reply.text)).toEqual({
			received: true,
			ignored: expect.stringContaining('scan.failed'),
		});

		const forged = await fetch(current.webhookUrl(), {
			method: 'POST',
			body: '{}',
			headers: { 'Content-Type': 'application/json' },
		});
		expect(forged.status).toBe(401);
		expect(forged.headers.get('content-type')).toMatch(/application\/json/);
		expect(await forged.json()).toMatchObject({ error: 'invalid_signature' });
	});
});

describe('raw body read through req.readRawBody()', () => {
	it('a request without rawBody (n8n has not read it yet) is read, verified and run', async () => {
		await activate();
		const lazy = await startReceiver(() => current, { lazyRawBody: true });
		try {
			const raw = JSON.stringify(bodyAt());
			const url = current.webhookUrl().replace(receiver.baseUrl, lazy.baseUrl);
			const reply = await post(raw, { url });
			const [result] = await lazy.waitFor(1);
			expect(reply.status).toBe(200);
			expect(JSON.parse(reply.text)).toEqual({ received: true });
			expect(itemsOf(result)).toEqual([asItem(raw)]);

			// Still verified: a wrong signature over lazily read bytes is refused.
			const forged = await fetch(url, {
				method: 'POST',
				headers: {
					'Content-Type': 'application/json',
					'X-Service-Signature': signatureHeader(secret, `${raw} `),
				},
				body: raw,
			});
			expect(forged.status).toBe(401);
			expect((await lazy.waitFor(2))[1].workflowData).toBeUndefined();
		} finally {
			await lazy.close();
		}
	});
});
