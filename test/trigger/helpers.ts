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
	typeVersion?: number,
): Promise<TriggerHarness> {
	return await TriggerHarness.create({
		parameters,
		env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY },
		webhookBaseUrl,
		staticData,
		typeVersion,
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

/** JSON with object keys sorted and no spacing, as the reference defines the key's digest. */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (typeof value === 'object' && value !== null)
		return `{${Object.keys(value)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${canonical((value as IDataObject)[key])}`)
			.join(',')}}`;
	return JSON.stringify(value) ?? 'null';
}

/**
 * The first 16 hex digits of the SHA-256 of a record's canonical JSON without `timestamp` and
 * `*_at`, and with `withoutId`, without `scan_id` and `id`.
 */
export function resultDigest(record: IDataObject, withoutId = false): string {
	const timeless = Object.fromEntries(
		Object.entries(record).filter(
			([key]) =>
				key !== 'timestamp' && !key.endsWith('_at') && !(withoutId && /^(scan_)?id$/.test(key)),
		),
	);
	return createHash('sha256').update(canonical(timeless)).digest('hex').slice(0, 16);
}

/** `deliveryKey` as the reference states it, for a body and the scan ID it names (if any). */
export function keyOf(body: IDataObject, scanId?: string): string {
	const data = body.data as IDataObject | undefined;
	return scanId !== undefined && typeof data === 'object' && data !== null && !Array.isArray(data)
		? `${String(body.event)}:${scanId}:${resultDigest(data, true)}`
		: `sha256:${resultDigest(typeof data === 'object' && data !== null && !Array.isArray(data) ? { ...body, data: Object.fromEntries(Object.entries(data).filter(([key]) => key !== 'timestamp' && !key.endsWith('_at'))) } : body)}`;
}

/**
 * The item a delivery starts: its body (parsed from the signed bytes, a leading BOM skipped),
 * `data.original_filename` after `data.filename`, and `deliveryKey` (above) for the positive
 * whole-number `data.scan_id` (number or digit string), else `data.id`.
 */
export function asItem(raw: string | Buffer): IDataObject {
	const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8');
	const body = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')) as IDataObject;
	const data = body.data as IDataObject | undefined;
	const named = data?.scan_id ?? data?.id;
	const exact = typeof named === 'number' ? Number.isSafeInteger(named) : typeof named === 'string';
	const digits = exact ? String(named) : '';
	const item: IDataObject = {
		...body,
		deliveryKey: keyOf(body, /^[1-9][0-9]*$/.test(digits) ? digits : undefined),
	};
	if (data && typeof data.filename === 'string') {
		const withName: IDataObject = {};
		for (const [key, value] of Object.entries(data)) {
			if (key === 'original_filename') continue;
			withName[key] = value;
			if (key === 'filename')
				withName.original_filename = data.filename.replace(
					/\.ds-[0-9a-fA-F]{12}(?=(\.[A-Za-z0-9]{1,10})?$)/,
					'',
				);
		}
		item.data = withName;
	}
	return item;
}
