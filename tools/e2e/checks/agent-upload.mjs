// Uploads around an AI Agent (issues 27, 34): n8n hands a tool the model's JSON arguments only,
// never a file, so the Upload tool refuses every call (agent.mjs and mcp.mjs check the refusal).
// The way that works and is safe, checked here with a sample invoice (the sandbox reads its text, so
// the fields are the invoice's own): a file attached in the chat is uploaded by the workflow before
// the agent (Chat Trigger -> Document Scanning Upload -> AI Agent), and the agent gets the extracted
// fields in its prompt. The model names no address n8n would fetch (README, "AI agents and MCP").
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_NAME } from '../../n8n/local.mjs';
import { runDataOf } from '../../n8n/rest.mjs';
import { restOf, sandboxOf, waitFor } from './support.mjs';
import { agentWorkflow, chat, createActive, createModelCredential } from './agent-workflows.mjs';
import { startScriptedModel } from '../scripted-model.mjs';

const FILE_WEBHOOK_ID = 'e2e0a9e7-0000-4000-8000-00000000a9e4';

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
	// A comment after %%EOF makes the sample invoice a new file for the service: other checks (the
	// first-scan example) upload the sample invoices themselves with this template.
	const [attachedFile] = readdirSync(dir).filter((f) => f.endsWith('.pdf'));
	const fresh = (name) =>
		Buffer.concat([
			readFileSync(path.join(dir, name)),
			Buffer.from(`\n% e2e agent upload ${process.pid} ${Date.now()}\n`),
		]);
	const model = await startScriptedModel();
	try {
		const rest = restOf(ctx);
		const credential = await createModelCredential(ctx, model);
		const sandbox = sandboxOf(ctx);
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
	}
}
