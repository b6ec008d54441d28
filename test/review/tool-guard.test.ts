/**
 * Review of issue 34 §3 from outside: "Allow Changes to the Account" is the builder's guard
 * against a model creating or deleting webhooks. It is an ordinary boolean parameter of the tool
 * form, so n8n 2.x's editor offers its "let the model define this parameter" button on it (a tool
 * node's parameter without `noDataExpression`, editor-ui `focusPanel.store`), and n8n's AI
 * workflow builder may fill any parameter with `$fromAI`. One click, and the model that the guard
 * is for decides it: asked to, it turns the guard on and deletes the user's webhook.
 */
import type { IDataObject } from 'n8n-workflow';

import { api } from '../support/sandbox-api';
import { callTool, type ToolPath } from '../support/tool-call';
import { loadPackage, ACTION_NODE_TYPE } from '../support/package';
import { useSandbox } from '../node/helpers';

const sb = useSandbox();
const PATHS: ToolPath[] = ['mcp', 'agent'];
const remove = {
	resource: 'webhook',
	operation: 'delete',
	webhookId: "={{ $fromAI('webhookId', 'The numeric ID of the webhook', 'number') }}",
	// What the editor's button writes for the parameter.
	allowChanges:
		"={{ $fromAI('Allow_Changes_to_the_Account', 'Whether the AI model may use this tool', 'boolean') }}",
};

const webhookNames = async () =>
	((await api(sb.get(), 'GET', '/webhooks')).body.data as IDataObject[]).map((w) => w.name);

test('the guard takes no expression: n8n offers no "let the model define it" for it', async () => {
	const { nodeTypes } = await loadPackage();
	const type = nodeTypes.getByNameAndVersion(ACTION_NODE_TYPE, 1.1);
	const guard = type.description.properties.find((p) => p.name === 'allowChanges');
	expect(guard?.noDataExpression).toBe(true);
});

test.each(PATHS)(
	'%s: a guard set to $fromAI still refuses, whatever the model says',
	async (path) => {
		const created = await api(sb.get(), 'POST', '/webhooks', {
			json: { name: 'ERP import', url: 'https://erp.example.com/hook', events: ['scan.completed'] },
		});
		const id = (created.body.data as IDataObject).id;
		const result = await callTool({
			path,
			parameters: remove,
			args: { webhookId: id, Allow_Changes_to_the_Account: true },
			env: sb.env(),
		});
		expect(result.text).toMatch(/turned off for AI models/);
		expect(await webhookNames()).toEqual(['ERP import']);
	},
);
