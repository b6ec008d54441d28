// examples/ask-about-your-scans.json in real n8n: Chat Trigger -> AI Agent with the Document
// Scanning tools (version 1.1: compact answers; List scans takes the status and template filters). Its model is a placeholder credential the user replaces; here a copy of the
// example runs against the scripted model (tools/e2e/scripted-model.mjs), with its chat made public
// so that the check can post to it. Every other node and parameter is the example's own.
import { localExample } from '../../n8n/local.mjs';
import { restOf, sandboxOf, unwrap, waitFor, webhooksAt } from './support.mjs';
import { chat, createModelCredential, toolName } from './agent-workflows.mjs';
import { listProblems, schemaProblems } from './tool-checks.mjs';
import { startScriptedModel, toolMessages, toolsOffered } from '../scripted-model.mjs';

const FILE = 'ask-about-your-scans.json';
const WEBHOOK_ID = 'e2e0a9e7-0000-4000-8000-0000000e7a01';

/** @param {import('./support.mjs').E2eContext} ctx */
export async function askAboutYourScans(ctx) {
	const example = localExample(FILE);
	const model = await startScriptedModel();
	try {
		const credential = await createModelCredential(ctx, model);
		const nodes = example.nodes.map((node) => {
			if (node.type === '@n8n/n8n-nodes-langchain.chatTrigger')
				return { ...node, webhookId: WEBHOOK_ID, parameters: { ...node.parameters, public: true } };
			if (node.credentials?.openAiApi)
				return {
					...node,
					credentials: { openAiApi: { id: credential.id, name: credential.name } },
				};
			return node;
		});
		const rest = restOf(ctx);
		const { id: _id, ...copy } = example;
		const created = await rest.call('POST', 'workflows', {
			...copy,
			name: `${example.name} (e2e, scripted model)`,
			nodes,
			active: false,
		});
		await rest.activate(created.id);

		const sandbox = sandboxOf(ctx);
		const [scanId] = await sandbox.seedScans({ count: 1 });
		const scan = unwrap((await sandbox.api(`/scans/${scanId}`)).body);
		const before = unwrap((await sandbox.api('/account')).body);
		// No Document Scanning Trigger is active now; an earlier check's late webhook DELETE (n8n 2.x
		// deletes after the REST call returns) would land in this log: wait, and name any left.
		const triggerHooks = () => webhooksAt(ctx, new URL('webhook/', ctx.n8nUrl).href);
		await waitFor(async () => (await triggerHooks()).length === 0);
		const leftover = await triggerHooks();
		await sandbox.clearRequests();
		const answer = await chat(
			ctx,
			WEBHOOK_ID,
			[
				'How many scans are left, which templates are there, and what is in my newest scan?',
				`call ${toolName('Account balance')} {}`,
				`call ${toolName('List templates')} {}`,
				`call ${toolName('List scans')} {"limit": 1, "status": "", "templateId": ""}`,
				`then call ${toolName('Read scan')} {"scanId": ${scanId}}`,
			].join('\n'),
		);
		const execution = await waitFor(async () => {
			const latest = (await rest.executions(String(created.id), 1))[0];
			return latest && !['new', 'running'].includes(latest.status) ? latest : undefined;
		});
		const requests = await sandbox.requests();
		const after = unwrap((await sandbox.api('/account')).body);
		const results = toolMessages(model.requests.at(-1));
		const offered = toolsOffered(model.requests[0]);
		const expected = ['Account balance', 'List templates', 'List scans', 'Read scan'].map(toolName);
		const lists = expected.flatMap((name) =>
			listProblems(parse(results.find((r) => r.name === name)?.content)).map(
				(p) => `${name}: ${p}`,
			),
		);
		ctx.check(
			`example "${example.name}" runs against the scripted model: all four tools answer with data, the reply carries it`,
			answer.status === 200 &&
				execution?.status === 'success' &&
				lists.length === 0 &&
				answer.output.includes(`"remaining_scans":${before.remaining_scans}`) &&
				answer.output.includes(String(scan.extracted_data?.invoice_number ?? scan.id)),
			`HTTP ${answer.status}, execution ${execution?.status}; ${lists.join('; ') || `tool results: ${results.map((r) => `${r.name} ${r.content.length} chars`).join(', ')}`}`,
		);
		const schemas = {
			'Account balance': {},
			'List templates': {},
			'List scans': { limit: 'number', status: 'string', templateId: 'string' },
			'Read scan': { scanId: 'number' },
		};
		const problems = offered.flatMap((tool) =>
			schemaProblems(tool, schemas[Object.keys(schemas).find((n) => toolName(n) === tool.name)]),
		);
		ctx.check(
			`example "${example.name}": strict tool schemas, reading only (no upload, no credit used)`,
			offered.length === expected.length &&
				problems.length === 0 &&
				requests.length > 0 &&
				requests.every((r) => r.method === 'GET') &&
				after.used_scans === before.used_scans,
			`${offered.map((t) => t.name).join(', ')}${problems.length ? `; ${problems.join('; ')}` : ''}; sandbox: ${requests.map((r) => `${r.method} ${r.path}`).join(', ')}; used_scans ${before.used_scans} -> ${after.used_scans}${leftover.length ? `; webhooks of another trigger still registered: ${leftover.map((h) => h.id).join(', ')}` : ''}`,
		);
		await rest.deactivate(created.id);
	} finally {
		await model.close();
	}
}

function parse(text) {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}
