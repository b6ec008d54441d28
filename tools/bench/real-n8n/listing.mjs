// Scan → Get Many (Return All) over seeded scans, and a Wait Timeout under 429 + Retry-After, in a
// real n8n: the figures of tools/bench/real-n8n.mjs besides batches and memory.
import { importWorkflow } from '../../n8n/local.mjs';
import { returnAllWorkflow, timeoutWorkflow } from './workflows.mjs';
import { control, executeWorkflow, outputOf, round, span } from './run.mjs';

/** Return All over `scans` seeded scans, against pages × latency. */
export async function returnAllFigure({ origin, env, workflowId, scenario }) {
	importWorkflow(returnAllWorkflow(workflowId), { env });
	await control(origin, 'POST', 'reset', { envelope: scenario.envelope, latencyMs: 0 });
	const { ids } = await control(origin, 'POST', 'scans', { count: scenario.scans, template_id: 2 });
	await control(origin, 'POST', 'options', { latencyMs: scenario.latencyMs });
	const run = executeWorkflow(workflowId, env);
	const wallMs = span(run, 'Scan', 'Scan');
	const got = outputOf(run, 'Scan').map((json) => Number(json.id));
	const expected = [...ids].reverse();
	const pages = Math.ceil(scenario.scans / 25);
	return {
		...scenario,
		pages,
		wallMs,
		sequentialMs: pages * scenario.latencyMs,
		ratio: round(wallMs / (pages * scenario.latencyMs)),
		correct: got.length === expected.length && got.every((v, i) => v === expected[i]),
	};
}

/** One upload with waiting while every read gets 429 + Retry-After: 30; Wait Timeout `waitTimeoutS`. */
export async function timeoutFigure({ origin, env, workflowId, scenario }) {
	importWorkflow(timeoutWorkflow(workflowId, scenario), { env });
	await control(origin, 'POST', 'reset', {
		envelope: scenario.envelope,
		latencyMs: scenario.latencyMs,
	});
	await control(origin, 'POST', 'hold', { hold: true });
	await control(origin, 'POST', 'faults', {
		method: 'GET',
		path: '^/scans/\\d+$',
		kind: 'status',
		status: 429,
		headers: { 'Retry-After': '30' },
		times: 100,
	});
	const run = executeWorkflow(workflowId, env);
	const wallMs = span(run, 'Scan', 'Scan');
	const [item] = outputOf(run, 'Scan');
	return {
		...scenario,
		wallMs,
		ratioToTimeout: round(wallMs / (scenario.waitTimeoutS * 1000)),
		error: String(item?.error ?? ''),
	};
}
