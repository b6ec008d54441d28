// Uploads from an AI Agent (issue 27): n8n hands a tool the model's JSON arguments only, never a
// file, so the Upload tool itself cannot scan anything, not even a file attached in the chat
// (agent.mjs checks its error). The two ways that work, both checked here with a sample invoice
// (the sandbox reads its text, so the fields are the invoice's own):
//   - a URL the model names: a Call n8n Workflow Tool whose sub-workflow downloads it (HTTP
//     Request, file response, from 127.0.0.1 here) and uploads it with the Document Scanning node,
//     waiting for the result;
//   - a file attached in the chat: the workflow uploads it before the agent (Chat Trigger ->
//     Document Scanning Upload -> AI Agent), and the agent gets the extracted fields in its prompt.
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { PACKAGE_NAME } from '../../n8n/local.mjs';
import { runDataOf } from '../../n8n/rest.mjs';
import { restOf, sandboxOf, unwrap, waitFor } from './support.mjs';
import {
	agentWorkflow,
	chat,
	createActive,
	createModelCredential,
	toolName,
} from './agent-workflows.mjs';
import { startScriptedModel, toolMessages, toolsOffered } from '../scripted-model.mjs';

const WEBHOOK_ID = 'e2e0a9e7-0000-4000-8000-00000000a9e3';
const FILE_WEBHOOK_ID = 'e2e0a9e7-0000-4000-8000-00000000a9e4';
const TOOL = 'Scan a document from a URL';

/** The sub-workflow: Execute Workflow Trigger (url, templateId) -> HTTP Request -> Upload. */
function scanFromUrlWorkflow(ctx) {
	return {
		name: 'e2e: scan a document from a URL (sub-workflow of an agent tool)',
		active: false,
		nodes: [
			{
				id: 'start',
				name: 'When called by the agent',
				type: 'n8n-nodes-base.executeWorkflowTrigger',
				typeVersion: 1.1,
				position: [0, 0],
				parameters: {
					workflowInputs: { values: [{ name: 'url' }, { name: 'templateId', type: 'number' }] },
				},
			},
			{
				id: 'download',
				name: 'Download the document',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [220, 0],
				parameters: {
					url: '={{ $json.url }}',
					options: { response: { response: { responseFormat: 'file' } } },
				},
			},
			{
				id: 'upload',
				name: 'Scan it',
				type: `${PACKAGE_NAME}.documentScanning`,
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					resource: 'scan',
					operation: 'upload',
					templateId: {
						__rl: true,
						mode: 'id',
						value: "={{ $('When called by the agent').item.json.templateId }}",
					},
					waitForCompletion: true,
					options: { output: 'fields' },
				},
				credentials: { documentScanningApi: { id: ctx.credential.id, name: ctx.credential.name } },
			},
		],
		connections: {
			'When called by the agent': {
				main: [[{ node: 'Download the document', type: 'main', index: 0 }]],
			},
			'Download the document': { main: [[{ node: 'Scan it', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The agent's tool: Call n8n Workflow Tool (2.2) on the sub-workflow, inputs from `$fromAI`. */
function workflowTool(subWorkflowId) {
	const field = (id, type) => ({
		id,
		displayName: id,
		required: false,
		defaultMatch: false,
		display: true,
		canBeUsedToMatch: true,
		type,
		removed: false,
	});
	return {
		id: 'scan-from-url',
		name: TOOL,
		type: '@n8n/n8n-nodes-langchain.toolWorkflow',
		typeVersion: 2.2,
		position: [600, 220],
		parameters: {
			description:
				'Scans the PDF, JPG or PNG document at an https URL with a template and returns its extracted fields. Uses one scan credit.',
			workflowId: { __rl: true, mode: 'id', value: subWorkflowId },
			workflowInputs: {
				mappingMode: 'defineBelow',
				value: {
					url: "={{ $fromAI('url', 'The URL of the document to scan', 'string') }}",
					templateId: "={{ $fromAI('templateId', 'The numeric ID of the template', 'number') }}",
				},
				matchingColumns: [],
				schema: [field('url', 'string'), field('templateId', 'number')],
				attemptToConvertTypes: false,
				convertFieldsToString: false,
			},
		},
	};
}

/** Chat Trigger (files allowed) -> Upload of the attached file (`data0`) -> AI Agent. */
function chatFileWorkflow(ctx, modelCredential) {
	const workflow = agentWorkflow(ctx, {
		name: 'e2e: a file attached in the chat, scanned before the agent',
		webhookId: FILE_WEBHOOK_ID,
		modelCredential,
		tools: {},
		files: true,
	});
	const agent = workflow.nodes.find((n) => n.name === 'AI Agent');
	agent.parameters = {
		promptType: 'define',
		text: "={{ $('When chat message received').item.json.chatInput }}\n\nThe attached document, as scanned: {{ JSON.stringify($json) }}",
		options: {},
	};
	workflow.nodes.push({
		id: 'scan-attached',
		name: 'Scan the attached document',
		type: `${PACKAGE_NAME}.documentScanning`,
		typeVersion: 1,
		position: [120, -200],
		parameters: {
			resource: 'scan',
			operation: 'upload',
			templateId: { __rl: true, mode: 'id', value: '1' },
			binaryPropertyName: 'data0',
			waitForCompletion: true,
			options: { output: 'fields' },
		},
		credentials: { documentScanningApi: { id: ctx.credential.id, name: ctx.credential.name } },
	});
	workflow.connections['When chat message received'] = {
		main: [[{ node: 'Scan the attached document', type: 'main', index: 0 }]],
	};
	workflow.connections['Scan the attached document'] = {
		main: [[{ node: 'AI Agent', type: 'main', index: 0 }]],
	};
	return workflow;
}

/** @param {import('./support.mjs').E2eContext} ctx */
export async function checkAgentUploads(ctx) {
	const dir = path.join(ctx.filesDir, 'invoices');
	// Two sample invoices: one for each way (the same file twice with one template is a 409). A
	// comment after %%EOF makes each a new file for the service: other checks (the first-scan
	// example) upload the sample invoices themselves with this template.
	const [file, attachedFile] = readdirSync(dir).filter((f) => f.endsWith('.pdf'));
	const fresh = (name) =>
		Buffer.concat([
			readFileSync(path.join(dir, name)),
			Buffer.from(`\n% e2e agent upload ${process.pid} ${Date.now()}\n`),
		]);
	const pdf = fresh(file);
	const files = http.createServer((req, res) => {
		res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length });
		res.end(pdf);
	});
	await new Promise((resolve) => files.listen(0, '127.0.0.1', () => resolve(undefined)));
	const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (files.address()).port}/${file}`;
	const model = await startScriptedModel();
	try {
		const rest = restOf(ctx);
		const credential = await createModelCredential(ctx, model);
		const sub = await rest.call('POST', 'workflows', scanFromUrlWorkflow(ctx));
		// n8n 2.x runs only a published (active) sub-workflow; 1.x runs it as saved.
		if (ctx.line.major >= 2) await rest.activate(sub.id);
		const workflow = agentWorkflow(ctx, {
			name: 'e2e: AI Agent scanning a document from a URL',
			webhookId: WEBHOOK_ID,
			modelCredential: credential,
			tools: {},
		});
		workflow.nodes.push(workflowTool(String(sub.id)));
		workflow.connections[TOOL] = { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] };
		await createActive(ctx, workflow);

		const sandbox = sandboxOf(ctx);
		const before = unwrap((await sandbox.api('/account')).body);
		await sandbox.clearRequests();
		const answer = await chat(
			ctx,
			WEBHOOK_ID,
			`Please scan ${url}\ncall ${toolName(TOOL)} ${JSON.stringify({ url, templateId: 1 })}`,
		);
		const after = unwrap((await sandbox.api('/account')).body);
		const uploads = (await sandbox.requests()).filter(
			(r) => r.method === 'POST' && r.path === '/scans',
		);
		const result = toolMessages(model.requests.at(-1)).find((r) => r.name === toolName(TOOL));
		const offered = toolsOffered(model.requests[0]).find((t) => t.name === toolName(TOOL));
		const text = result?.content ?? '';
		ctx.check(
			'AI Agent: a sub-workflow tool downloads the URL the model names and uploads it; the model gets the extracted fields',
			answer.status === 200 &&
				uploads.length === 1 &&
				uploads[0].status === 201 &&
				after.used_scans === before.used_scans + 1 &&
				/supplier_name/.test(text) &&
				/"status":"(completed|validation_failed)"/.test(text.replace(/\\"/g, '"')) &&
				offered?.parameters?.required?.includes('url') === true,
			`HTTP ${answer.status}; ${uploads.length} upload(s) (${uploads.map((u) => u.status).join(', ')}), used_scans ${before.used_scans} -> ${after.used_scans}; schema ${JSON.stringify(offered?.parameters?.properties)}; the model got: ${text.slice(0, 300)}`,
		);

		// A file attached in the chat, scanned by the workflow before the agent.
		model.clear();
		await sandbox.clearRequests();
		const fileWorkflowId = await createActive(ctx, chatFileWorkflow(ctx, credential));
		const attached = await chat(ctx, FILE_WEBHOOK_ID, 'What does the attached invoice say?', {
			file: {
				name: attachedFile,
				type: 'application/pdf',
				bytes: fresh(attachedFile),
			},
		});
		const execution = await waitFor(async () => {
			const latest = (await rest.executions(fileWorkflowId, 1))[0];
			return latest && !['new', 'running'].includes(latest.status) ? latest : undefined;
		});
		const scans = (await sandbox.requests()).filter(
			(r) => r.method === 'POST' && r.path === '/scans',
		);
		const prompt = JSON.stringify(model.requests[0]?.body?.messages ?? []);
		const failure =
			execution?.status === 'success'
				? ''
				: `; ${Object.entries(runDataOf(await rest.execution(execution?.id).catch(() => undefined)))
						.filter(([, runs]) => runs?.[0]?.error)
						.map(([node, runs]) => `${node}: ${runs[0].error.message}`)
						.join('; ')}`;
		ctx.check(
			'AI Agent: a PDF attached in the chat is uploaded by the workflow before the agent, and the model gets its fields',
			attached.status === 200 &&
				execution?.status === 'success' &&
				scans.length === 1 &&
				scans[0].status === 201 &&
				prompt.includes('supplier_name') &&
				prompt.includes(attachedFile),
			`HTTP ${attached.status}, execution ${execution?.status}; ${scans.length} upload(s); the model's prompt ${prompt.includes('supplier_name') ? 'carries' : 'lacks'} the fields: ${prompt.slice(0, 200)}${failure}`,
		);
	} finally {
		await model.close();
		files.closeAllConnections?.();
		await new Promise((resolve) => files.close(() => resolve(undefined)));
	}
}
