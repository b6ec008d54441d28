// Running an example (or a copy of it) with `n8n execute`, shared by the example checks.
import { exampleId, importWorkflow, localExample, n8nSync } from '../../n8n/local.mjs';
import { parseRunOutput, settle } from './support.mjs';

/** `n8n execute --id=<id> --rawOutput`: { run, ok, detail } (the run data, no error, a short account). */
export async function execute(ctx, id) {
	const t = Date.now();
	const r = n8nSync(['execute', `--id=${id}`, '--rawOutput'], { env: ctx.env, timeoutMs: 180_000 });
	await settle();
	let run;
	try {
		run = parseRunOutput(r.stdout);
	} catch {
		ctx.log(
			`n8n execute --id=${id}: exit ${r.status}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`,
		);
	}
	const error = run?.data?.resultData?.error;
	return {
		run,
		ok: r.status === 0 && run !== undefined && !error,
		detail: `exit ${r.status}, ${Date.now() - t} ms${error ? `, error: ${error.message}` : ''}`,
	};
}

/**
 * `n8n execute` starts only from a Manual Trigger: imports a copy of a scheduled example whose
 * Schedule Trigger is a Manual Trigger of the same name (every other node is the example's own).
 * Returns { example, workflow }.
 */
export async function importManualCopy(ctx, file) {
	const example = localExample(file);
	const workflow = {
		...example,
		id: `${exampleId(file).slice(0, 12)}Cli1`,
		name: `${example.name} (e2e, manual start)`,
		nodes: example.nodes.map((n) =>
			n.type === 'n8n-nodes-base.scheduleTrigger'
				? { ...n, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} }
				: n,
		),
	};
	await importWorkflows(ctx, workflow);
	return { example, workflow };
}

/** Imports workflows for `n8n execute` (the CLI, blocking), then settle()s before the next fetch. */
export async function importWorkflows(ctx, ...workflows) {
	for (const workflow of workflows) importWorkflow(workflow, { env: ctx.env });
	await settle();
}
