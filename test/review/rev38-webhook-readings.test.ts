/**
 * Review of issue 38 from outside: "Activation registers exactly one webhook; deactivation
 * deletes it" under server readings the spec leaves open ("the response shapes of all webhook
 * endpoints: not shown"; "Fields of the webhook record: not shown"). A rewriting proxy in front
 * of the sandbox changes only the shape of GET /webhooks; every request still reaches the sandbox.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox, startSandbox } from '../../sandbox/server';
import { ALL_EVENTS } from '../support/fixtures';
import { TriggerHarness } from '../support/trigger-harness';
import { listWebhooks } from '../trigger/helpers';

type Rewrite = (records: IDataObject[]) => unknown;

/** A proxy that forwards every request to the sandbox and rewrites GET /webhooks' records. */
async function startProxy(target: string, rewrite: () => Rewrite | undefined) {
	const origin = new URL(target).origin;
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			void (async () => {
				const headers = { ...req.headers } as Record<string, string>;
				delete headers.host;
				delete headers['content-length'];
				const upstream = await fetch(`${origin}${req.url}`, {
					method: req.method,
					headers,
					body: chunks.length ? Buffer.concat(chunks) : undefined,
				});
				let text = await upstream.text();
				const change = rewrite();
				if (change && req.method === 'GET' && /\/webhooks(\?|$)/.test(req.url ?? '')) {
					const body = JSON.parse(text) as IDataObject | IDataObject[];
					const records = Array.isArray(body) ? body : (body.data as IDataObject[]);
					text = JSON.stringify(change(records));
				}
				res.writeHead(upstream.status, { 'Content-Type': 'application/json' });
				res.end(text);
			})();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}${new URL(target).pathname}`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

const URL_BASE = 'https://n8n.example.com/webhook';
let sandbox: Sandbox;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let rewrite: Rewrite | undefined;

beforeAll(async () => {
	sandbox = await startSandbox({ allowInsecureWebhookUrls: true, processingDelayMs: 20 });
	proxy = await startProxy(sandbox.baseUrl, () => rewrite);
});
afterAll(async () => {
	await proxy.close();
	await sandbox.close();
});
beforeEach(() => sandbox.control.reset());

const trigger = async (staticData: IDataObject) =>
	await TriggerHarness.create({
		parameters: { events: ALL_EVENTS },
		env: { baseUrl: proxy.baseUrl, apiKey: DEFAULT_API_KEY },
		webhookBaseUrl: URL_BASE,
		staticData,
	});

// Control: the same proxy passing the sandbox's own {"data": [...]} through holds.
test('control: through the proxy unchanged, a restart keeps one webhook and deactivation deletes it', async () => {
	rewrite = undefined;
	const staticData: IDataObject = {};
	await (await trigger(staticData)).activate();
	const harness = await trigger(staticData);
	await harness.activate();
	expect(await listWebhooks(sandbox)).toHaveLength(1);
	expect(await harness.hook('delete', { activation: 'update' })).toBe(true);
	expect(await listWebhooks(sandbox)).toHaveLength(0);
});

describe('GET /webhooks in another envelope: {"webhooks": [...]}', () => {
	beforeEach(() => {
		rewrite = (records) => ({ webhooks: records });
	});

	it('a restart (activation with the stored static data) keeps one webhook at the service', async () => {
		const staticData: IDataObject = {};
		await (await trigger(staticData)).activate();
		await (await trigger(staticData)).activate(); // n8n restarted: checkExists, create if false
		expect(await listWebhooks(sandbox)).toHaveLength(1);
	});

	it('deactivation deletes the webhook, or says it could not', async () => {
		const staticData: IDataObject = {};
		const harness = await trigger(staticData);
		await harness.activate();
		const deleted = await harness.hook('delete', { activation: 'update' });
		const left = await listWebhooks(sandbox);
		// Either nothing is left, or the node reports the failure (false: n8n logs it).
		expect({ deleted, left: left.length }).not.toEqual({ deleted: true, left: 1 });
	});
});

describe.each([
	['enabled', (active: boolean) => ({ enabled: active })],
	['is_enabled', (active: boolean) => ({ is_enabled: active })],
])('webhook records that show activity as `%s`', (_flag, shape) => {
	beforeEach(() => {
		rewrite = (records) => ({
			data: records.map(({ is_active, ...rest }) => ({ ...rest, ...shape(is_active === true) })),
		});
	});

	it('after the service deactivated the webhook (10 failures), a restart registers an active one again', async () => {
		const staticData: IDataObject = {};
		await (await trigger(staticData)).activate();
		const [first] = await listWebhooks(sandbox);
		sandbox.control.deactivateWebhook(Number(first.id));

		await (await trigger(staticData)).activate(); // n8n restarted
		const active = (await listWebhooks(sandbox)).filter((hook) => hook.is_active === true);
		expect(active).toHaveLength(1);
	});
});

// A JSON column served without a cast (Laravel, which the sandbox plays elsewhere) comes as text.
describe('webhook records whose `events` is JSON text: "[\\"scan.completed\\",\\"scan.failed\\"]"', () => {
	beforeEach(() => {
		rewrite = (records) => ({
			data: records.map((record) => ({ ...record, events: JSON.stringify(record.events) })),
		});
	});

	it('a restart keeps the webhook that is there (no delete and re-create, no gap without a webhook)', async () => {
		const staticData: IDataObject = {};
		await (await trigger(staticData)).activate();
		const [before] = await listWebhooks(sandbox);
		await (await trigger(staticData)).activate(); // n8n restarted
		expect((await listWebhooks(sandbox)).map((hook) => hook.id)).toEqual([before.id]);
	});
});

// Held: a URL normalised by the service (scheme and host in capitals, the default port written,
// a trailing slash) is still found as the node's.
describe('held: the service lists the URL normalised ("HTTPS://N8N.EXAMPLE.COM:443/…/")', () => {
	beforeEach(() => {
		rewrite = (records) => ({
			data: records.map((record) => ({
				...record,
				url: `${String(record.url).replace('https://n8n.example.com', 'HTTPS://N8N.EXAMPLE.COM:443')}/`,
			})),
		});
	});

	it('a restart keeps the webhook; deactivation deletes it', async () => {
		const staticData: IDataObject = {};
		await (await trigger(staticData)).activate();
		const [before] = await listWebhooks(sandbox);
		const harness = await trigger(staticData);
		await harness.activate();
		expect((await listWebhooks(sandbox)).map((hook) => hook.id)).toEqual([before.id]);
		expect(await harness.hook('delete', { activation: 'update' })).toBe(true);
		expect(await listWebhooks(sandbox)).toEqual([]);
	});
});
