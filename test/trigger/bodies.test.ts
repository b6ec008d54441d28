/**
 * Delivery bodies the webhook trigger must not mishandle: a leading UTF-8 BOM, nesting
 * 10,000 levels deep with "Include Full Scan", and a 429 on the full-scan fetch.
 */
import type { IDataObject } from 'n8n-workflow';

import { isoWithOffset } from '../../sandbox/engine/clock';
import type { Sandbox } from '../../sandbox/server';
import { signatureHeader } from '../../sandbox/signing';
import { type Receiver } from '../support/receiver';
import { type TriggerHarness } from '../support/trigger-harness';
import { asItem, itemsOf, makeHarness, nodeStatic, useTriggerStack } from './helpers';
import { ALL_EVENTS } from '../support/fixtures';

let sandbox: Sandbox;
let receiver: Receiver;
let current: TriggerHarness;
let secret: string;

useTriggerStack(
	() => current,
	(started) => ({ sandbox, receiver } = started),
);

async function activate(options: IDataObject = {}): Promise<void> {
	current = await makeHarness(sandbox, receiver.baseUrl, { events: ALL_EVENTS, options } as never);
	await current.activate();
	secret = String(nodeStatic(current).webhookSecret);
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** POSTs `bytes` with the given signature; returns the reply and what the node handed to n8n. */
async function deliver(bytes: Buffer, signature = signatureHeader(secret, bytes)) {
	const before = receiver.results.length;
	const res = await fetch(current.webhookUrl(), {
		method: 'POST',
		headers: {
			'Content-Type': 'application/json',
			'X-Service-Event': 'scan.completed',
			'X-Service-Signature': signature,
		},
		body: bytes,
	});
	const reply = { status: res.status, body: (await res.json()) as IDataObject };
	const results = await receiver.waitFor(before + 1);
	return { reply, result: results[before] };
}

function body(data: string): string {
	return `{"event":"scan.completed","timestamp":"${isoWithOffset(Date.now())}","data":${data}}`;
}

describe('a body that starts with a UTF-8 BOM', () => {
	it('signed over the bytes as sent (BOM included): accepted, the item is the body without the BOM', async () => {
		await activate();
		const text = body('{"scan_id":7,"template_id":1,"status":"completed"}');
		const { reply, result } = await deliver(Buffer.concat([BOM, Buffer.from(text)]));
		expect(reply).toEqual({ status: 200, body: { received: true } });
		expect(itemsOf(result)).toEqual([asItem(text)]);
	});

	it('the signature covers the BOM: a signature over the bytes without it is refused', async () => {
		await activate();
		const text = body('{"scan_id":7,"template_id":1,"status":"completed"}');
		const { reply, result } = await deliver(
			Buffer.concat([BOM, Buffer.from(text)]),
			signatureHeader(secret, text),
		);
		expect(reply.status).toBe(401);
		expect(result.workflowData).toBeUndefined();
	});

	it('with Include Full Scan the scan_id is read after the BOM', async () => {
		await activate({ includeFullScan: true });
		const [scanId] = sandbox.control.seedScans({ count: 1, template_id: 1 });
		const text = body(`{"scan_id":${scanId},"status":"completed"}`);
		const [item] = itemsOf((await deliver(Buffer.concat([BOM, Buffer.from(text)]))).result);
		expect(item.scan).toMatchObject({ id: scanId });
		expect(item.fetchError).toBeUndefined();
	});
});

describe('a body nested 10,000 levels deep, with Include Full Scan', () => {
	const DEPTH = 10_000;
	const deep = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
	const deepObject = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;

	it.each([
		['an array', deep],
		['an object', deepObject],
	])(
		'nesting (%s) before data.scan_id: the execution starts and the scan is fetched',
		async (_label, nested) => {
			await activate({ includeFullScan: true });
			const [scanId] = sandbox.control.seedScans({ count: 1, template_id: 1 });
			const { reply, result } = await deliver(
				Buffer.from(body(`{"nested":${nested},"scan_id":${scanId},"status":"completed"}`)),
			);
			expect(reply.status).toBe(200);
			const [item] = itemsOf(result);
			expect(item.scan).toMatchObject({ id: scanId });
			expect(item.fetchError).toBeUndefined();
		},
	);
});

describe('Include Full Scan and 429', () => {
	it('one attempt: a 429 with a short Retry-After is not waited out, the item carries fetchError', async () => {
		await activate({ includeFullScan: true });
		const [scanId] = sandbox.control.seedScans({ count: 1, template_id: 1 });
		sandbox.control.addFault({
			method: 'GET',
			path: '^/scans/\\d+$',
			kind: 'status',
			status: 429,
			headers: { 'Retry-After': '1' },
		});
		sandbox.control.clearRequests();
		const [item] = itemsOf(
			(await deliver(Buffer.from(body(`{"scan_id":${scanId},"status":"completed"}`)))).result,
		);
		expect(sandbox.control.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			`GET /scans/${scanId} 429`,
		]);
		expect(item.scan).toBeUndefined();
		expect(item.fetchError).toEqual(expect.stringMatching(/rate limit/i));
	});
});
