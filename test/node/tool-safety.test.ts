/**
 * #34 §3 and §4: no secret in a model's context, no change of the account by accident, no upload.
 * As a tool, Webhook → Create and Delete are refused unless the builder turned on "Allow Changes
 * to the Account"; allowed, Create answers without the signing secret, and Delete refuses the
 * webhook of a Document Scanning Trigger (`n8n: <workflow> / <node>`). Webhook answers carry URLs
 * without their query (a trigger's URL may carry one). Scan → Upload is refused always: a tool
 * call carries no file. Plain (non-tool) nodes keep every behaviour.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { api } from '../support/sandbox-api';
import { callTool, type ToolPath } from '../support/tool-call';
import { jsonOf, run, useSandbox } from './helpers';

const sb = useSandbox();
const PATHS: ToolPath[] = ['mcp', 'agent'];
const WEBHOOK_ID = "={{ $fromAI('webhookId', 'The numeric ID of the webhook', 'number') }}";
const create = {
	resource: 'webhook',
	operation: 'create',
	name: "={{ $fromAI('name', 'A name for the webhook', 'string') }}",
	url: "={{ $fromAI('url', 'The https URL that receives the events', 'string') }}",
};
const remove = { resource: 'webhook', operation: 'delete', webhookId: WEBHOOK_ID };

async function webhook(
	name: string,
	url = 'https://hooks.example.com/scans?seal=s3cr3t-seal',
): Promise<IDataObject> {
	const created = await api(sb.get(), 'POST', '/webhooks', {
		json: { name, url, events: ['scan.completed'] },
	});
	return created.body.data as IDataObject;
}

const webhookNames = async () =>
	((await api(sb.get(), 'GET', '/webhooks')).body.data as IDataObject[]).map((w) => w.name);

/** What the model or MCP client got: the answer's text, and whether it failed. */
function failure(
	result: { isError: boolean; text: string; json: unknown },
	path: ToolPath,
): string | undefined {
	if (path === 'mcp') return result.isError ? result.text : undefined;
	const [item] = (result.json ?? []) as IDataObject[];
	return typeof item?.error === 'string' ? `${item.error} ${String(item.description)}` : undefined;
}

describe('§3 changes of the account are off unless the builder allows them', () => {
	test.each(PATHS)(
		'%s: Create and Delete are refused before any request, saying how to allow them',
		async (path) => {
			const hook = await webhook('Mine');
			sb.get().control.clearRequests();
			const made = await callTool({
				path,
				parameters: create,
				args: { name: 'x', url: 'https://a.example/h' },
				env: sb.env(),
			});
			const gone = await callTool({
				path,
				parameters: remove,
				args: { webhookId: hook.id },
				env: sb.env(),
			});
			expect(failure(made, path)).toMatch(
				/Webhook → Create changes the account and is turned off for AI models/,
			);
			expect(failure(gone, path)).toMatch(
				/Webhook → Delete changes the account and is turned off for AI models/,
			);
			expect(failure(gone, path)).toMatch(/"Allow Changes to the Account"/);
			expect(sb.get().control.requests()).toHaveLength(0);
			expect(await webhookNames()).toEqual(['Mine']);
		},
	);

	test.each(PATHS)(
		'%s: allowed, Create answers the webhook without its signing secret',
		async (path) => {
			const result = await callTool({
				path,
				parameters: { ...create, allowChanges: true },
				args: { name: 'Chat hook', url: 'https://hooks.example.com/chat?token=abc' },
				env: sb.env(),
			});
			const [answer] = result.json as IDataObject[];
			expect(answer).toEqual(
				expect.objectContaining({
					name: 'Chat hook',
					url: 'https://hooks.example.com/chat',
					secret: '[withheld]',
				}),
			);
			expect(result.text).not.toMatch(/whsec_|token=abc/);
			expect(await webhookNames()).toEqual(['Chat hook']);
		},
	);

	test.each(PATHS)('%s: Get Many and Get Logs show URLs without their query', async (path) => {
		const receiver = http.createServer((req, res) => req.resume().on('end', () => res.end('{}')));
		await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
		try {
			sb.get().control.setOptions({ allowInsecureWebhookUrls: true });
			const { port } = receiver.address() as AddressInfo;
			const hook = await webhook(
				'n8n: Orders / Trigger',
				`http://127.0.0.1:${port}/hook?seal=s3cr3t-seal`,
			);
			await sb.get().control.deliver(Number(hook.id), 'scan.completed');
			const env = sb.env();
			const list = await callTool({
				path,
				parameters: { resource: 'webhook', operation: 'getAll' },
				args: {},
				env,
			});
			expect(list.json).toEqual([
				// The receiver shares the service's host here: a model is never told it.
				expect.objectContaining({ url: `http://[withheld]:${port}/hook` }),
			]);
			const logs = await callTool({
				path,
				parameters: { resource: 'webhook', operation: 'getLogs', webhookId: String(hook.id) },
				args: {},
				env,
			});
			expect(logs.json).toEqual([
				expect.objectContaining({
					logs: [expect.objectContaining({ url: `http://[withheld]:${port}/hook` })],
				}),
			]);
			for (const text of [list.text, logs.text]) expect(text).not.toMatch(/s3cr3t-seal|\?/);
		} finally {
			receiver.closeAllConnections();
			await new Promise<void>((resolve) => receiver.close(() => resolve()));
		}
	});

	test.each(PATHS)(
		'%s: allowed, Delete removes a webhook but refuses a trigger’s, saying why',
		async (path) => {
			const mine = await webhook('Mine');
			const owned = await webhook('n8n: Orders / Document Scanning Trigger');
			const parameters = { ...remove, allowChanges: true };
			const deleted = await callTool({
				path,
				parameters,
				args: { webhookId: mine.id },
				env: sb.env(),
			});
			expect(deleted.json).toEqual([{ deleted: true, id: mine.id }]);
			const refused = await callTool({
				path,
				parameters,
				args: { webhookId: owned.id },
				env: sb.env(),
			});
			expect(failure(refused, path)).toMatch(
				new RegExp(
					`Webhook ${String(owned.id)} \\("n8n: Orders / Document Scanning Trigger"\\) belongs to a Document Scanning Trigger.*Nothing was deleted. To stop the trigger, deactivate its workflow`,
					's',
				),
			);
			expect(await webhookNames()).toEqual(['n8n: Orders / Document Scanning Trigger']);
		},
	);

	test('the plain node keeps its behaviour: Create outputs the secret, Delete removes any webhook', async () => {
		const created = await run(sb.env(), {
			resource: 'webhook',
			operation: 'create',
			name: 'ERP',
			url: 'https://hooks.example.com/erp',
			events: ['scan.completed'],
		});
		expect(jsonOf(created)[0].secret).toMatch(/^whsec_/);
		const owned = await webhook('n8n: Orders / Document Scanning Trigger');
		const removed = await run(sb.env(), {
			resource: 'webhook',
			operation: 'delete',
			webhookId: String(owned.id),
		});
		expect(jsonOf(removed)).toEqual([{ deleted: true, id: owned.id }]);
	});
});

describe('§4 a model cannot upload', () => {
	const upload = {
		resource: 'scan',
		operation: 'upload',
		templateId: {
			__rl: true,
			mode: 'id',
			value: "={{ $fromAI('templateId', 'The numeric ID of the template', 'number') }}",
		},
	};

	test.each(PATHS)(
		'%s: Scan → Upload is refused with its reason, uploading nothing',
		async (path) => {
			const before = sb.get().control.account().used_scans;
			const result = await callTool({
				path,
				parameters: upload,
				args: { templateId: 1 },
				env: sb.env(),
			});
			expect(failure(result, path)).toMatch(
				/Scan → Upload cannot run as an AI tool: a tool call carries only the model’s arguments, never a file.*Nothing was uploaded and no credit was used/s,
			);
			expect(sb.get().control.requests()).toHaveLength(0);
			expect(sb.get().control.account().used_scans).toBe(before);
		},
	);
});
