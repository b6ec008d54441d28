/** Helpers for the trigger tests: a sandbox, trigger harnesses, raw deliveries to the receiver. */
import { createHash } from 'node:crypto';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox, startSandbox } from '../../sandbox/server';
import { ALL_EVENTS } from '../support/fixtures';
import { type Receiver, startReceiver } from '../support/receiver';
import { TriggerHarness, type WebhookCallResult } from '../support/trigger-harness';

/**
 * One sandbox (insecure webhook URLs allowed) and one receiver playing n8n's webhook server for
 * a test file, reset before each test: `getCurrent` gives the harness deliveries go to, `bind`
 * receives both once they run.
 */
export function useTriggerStack(
	getCurrent: () => TriggerHarness,
	bind: (started: { sandbox: Sandbox; receiver: Receiver }) => void,
): void {
	let sandbox: Sandbox | undefined;
	let receiver: Receiver | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ allowInsecureWebhookUrls: true, processingDelayMs: 20 });
		receiver = await startReceiver(getCurrent);
		bind({ sandbox, receiver });
	});
	afterAll(async () => {
		await receiver?.close();
		await sandbox?.close();
	});
	beforeEach(() => {
		sandbox?.control.reset();
		receiver?.results.splice(0);
	});
}

export async function makeHarness(
	sandbox: Sandbox,
	webhookBaseUrl: string,
	parameters: INodeParameters = { events: ALL_EVENTS },
	staticData?: IDataObject,
): Promise<TriggerHarness> {
	return await TriggerHarness.create({
		parameters,
		env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY },
		webhookBaseUrl,
		staticData,
	});
}

/** The node's part of the workflow static data. */
export function nodeStatic(harness: TriggerHarness): IDataObject {
	const data = harness.staticData as IDataObject;
	return (data['node:Document Scanning Trigger'] ?? {}) as IDataObject;
}

/** GET /webhooks of the default account, unwrapped from either envelope. */
export async function listWebhooks(sandbox: Sandbox): Promise<IDataObject[]> {
	const res = await fetch(`${sandbox.baseUrl}/webhooks`, {
		headers: { Accept: 'application/json', Authorization: `Bearer ${DEFAULT_API_KEY}` },
	});
	const body = (await res.json()) as IDataObject | IDataObject[];
	return Array.isArray(body) ? body : (body.data as IDataObject[]);
}

/** POSTs raw bytes with the given headers to a URL; returns status and parsed body. */
export async function postRaw(
	url: string,
	raw: string | Buffer,
	headers: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', ...headers },
		body: raw,
	});
	const text = await res.text();
	let body: unknown = text;
	try {
		body = JSON.parse(text);
	} catch {
		body = text;
	}
	return { status: res.status, body };
}

/** Items of a call result as plain JSON objects. */
export function itemsOf(result: WebhookCallResult | undefined): IDataObject[] {
	return (result?.workflowData?.[0] ?? []).map((item) => item.json);
}

/**
 * The item a delivery starts: its body (parsed from the signed bytes, a leading BOM skipped)
 * plus `deliveryKey`, written out here as the reference states it: `<event>:<scan_id>` for a
 * positive whole-number scan_id (number or digit string), else `sha256:` + the bytes' digest.
 */
export function asItem(raw: string | Buffer): IDataObject {
	const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8');
	const body = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')) as IDataObject;
	const scanId = (body.data as IDataObject | undefined)?.scan_id;
	const digits = typeof scanId === 'number' || typeof scanId === 'string' ? String(scanId) : '';
	const deliveryKey = /^[1-9][0-9]*$/.test(digits)
		? `${String(body.event)}:${digits}`
		: `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
	return { ...body, deliveryKey };
}
