// Batches with results in a real n8n: our node (Upload, Wait for Completion) and the
// do-it-yourself path (HTTP Request upload → Wait 5 s → HTTP Request GET) on the same sandbox,
// each as `n8n execute` of its workflow. A size above the hourly limit runs "over several
// hours": one execution per hour of `perHour` new documents, the sandbox's virtual clock moved
// one hour on before each (its rolling hour then holds none of the earlier uploads; processing
// runs in real time). Times come from n8n's run data, so n8n's boot is not counted.
import { importWorkflow } from '../../n8n/local.mjs';
import { WAIT_SECONDS, diyWorkflow, nodeWorkflow } from './workflows.mjs';
import { control, executeWorkflow, outputOf, round, span } from './run.mjs';
import { heldDelays } from '../held.js';

const HOUR_MS = 60 * 60 * 1000;

/** One execution of `uploads` documents; its figures from the run data and the sandbox's log. */
async function oneExecution({ origin, baseUrl, env, id, kind, uploads, label, latencyMs }) {
	const workflow =
		kind === 'node'
			? nodeWorkflow(id, { uploads, label })
			: diyWorkflow(id, { uploads, label }, baseUrl);
	importWorkflow(workflow, { env });
	await control(origin, 'DELETE', 'requests');
	const run = executeWorkflow(id, env);
	const [first, last] = kind === 'node' ? ['Scan', 'Scan'] : ['Upload', 'Get'];
	const wallMs = span(run, first, last);
	const out = outputOf(run, last).map((json) =>
		json.data && json.data.id !== undefined ? json.data : json,
	);
	const requests = await control(origin, 'GET', 'requests');
	const { listedScans } = await control(origin, 'GET', 'options');
	const scans = [];
	for (const scan of out)
		scans.push({ id: scan.id, ...(await control(origin, 'GET', `scans/${scan.id}`)) });
	const delays = heldDelays(requests, scans, { latencyMs, listedScans });
	const complete =
		out.length === uploads &&
		out.every(
			(scan, i) => scan.filename === `real-${label}${i}.pdf` && scan.status === 'completed',
		);
	// Where the time went, on the sandbox's clock: from the first request to the last upload's
	// answer, and from there to the last answer.
	const posts = requests.filter((r) => r.method === 'POST');
	const firstAt = Math.min(...requests.map((r) => r.atMs));
	const uploadsDoneAt = Math.max(...posts.map((r) => r.doneAtMs ?? r.atMs));
	const lastDoneAt = Math.max(...requests.map((r) => r.doneAtMs ?? r.atMs));
	return {
		wallMs,
		uploadSpanMs: uploadsDoneAt - firstAt,
		afterUploadsMs: lastDoneAt - uploadsDoneAt,
		requests: requests.length,
		gets: requests.filter((r) => r.method === 'GET').length,
		delays,
		complete,
	};
}

/**
 * `uploads` documents by `scenario.batch` ("node" or "diy"), at most `perHour` an hour: one or
 * more executions. The figure sums their times against one processing time per execution.
 */
export async function batchFigure({ origin, baseUrl, env, workflowId, scenario }) {
	const { uploads, perHour, processingMs, latencyMs, envelope } = scenario;
	const kind = scenario.batch;
	await control(origin, 'POST', 'reset', {
		envelope,
		processingDelayMs: Math.round(processingMs / 2),
		latencyMs,
	});
	const hours = Math.ceil(uploads / perHour);
	const executions = [];
	for (let hour = 0; hour < hours; hour++) {
		if (hour > 0) await control(origin, 'POST', 'clock', { advanceMs: HOUR_MS });
		const size = Math.min(perHour, uploads - hour * perHour);
		executions.push(
			await oneExecution({
				origin,
				baseUrl,
				env,
				id: `${workflowId}h${hour}`,
				kind,
				uploads: size,
				label: `${kind}${hour}-`,
				latencyMs,
			}),
		);
	}
	const wallMs = executions.reduce((sum, e) => sum + e.wallMs, 0);
	const delays = executions.flatMap((e) => e.delays).sort((a, b) => a - b);
	const gets = executions.reduce((sum, e) => sum + e.gets, 0);
	return {
		kind,
		envelope,
		uploads,
		executions: hours,
		processingMs,
		latencyMs,
		wallMs,
		ratioToProcessing: round(wallMs / (hours * processingMs)),
		uploadSpanMs: Math.max(...executions.map((e) => e.uploadSpanMs)),
		afterUploadsMs: Math.max(...executions.map((e) => e.afterUploadsMs)),
		worstExecutionRatio: round(Math.max(...executions.map((e) => e.wallMs)) / processingMs),
		getsPerDocument: round(gets / uploads),
		requestsPerDocument: round(executions.reduce((sum, e) => sum + e.requests, 0) / uploads),
		deliveryP50Ms: delays.length ? Math.round(delays[Math.ceil(delays.length / 2) - 1]) : null,
		deliveryMaxMs: delays.length ? Math.round(delays[delays.length - 1]) : null,
		complete: executions.every((e) => e.complete),
		...(kind === 'diy' ? { waitSeconds: WAIT_SECONDS } : {}),
	};
}
