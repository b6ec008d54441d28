// The workflows the queue-mode e2e imports (fixed ids, inactive at import), and the shipped
// examples it runs (importExample).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CREDENTIAL, PACKAGE_NAME, localExample, n8nSync } from '../../n8n/local.mjs';

const credentials = { documentScanningApi: { id: CREDENTIAL.id, name: CREDENTIAL.name } };
const ACTION = `${PACKAGE_NAME}.documentScanning`;
const link = (to) => ({ main: [[{ node: to, type: 'main', index: 0 }]] });
let n = 0;
const node = (name, type, typeVersion, parameters, extra = {}) => ({
	parameters,
	id: `9e0e0000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
	name,
	type,
	typeVersion,
	position: [n * 220, 0],
	...extra,
});

/** Manual Trigger -> Account: Get -> Template: Get Many (run on a worker through REST). */
export const ACTION_WORKFLOW = {
	id: 'docscanQueueAct1',
	name: 'queue e2e: account and templates',
	active: false,
	nodes: [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, {}),
		node('Balance', ACTION, 1, { resource: 'account', operation: 'get' }, { credentials }),
		node(
			'Templates',
			ACTION,
			1,
			{ resource: 'template', operation: 'getAll', returnAll: true },
			{ credentials },
		),
	],
	connections: { Start: link('Balance'), Balance: link('Templates') },
	settings: { executionOrder: 'v1' },
};

/**
 * A plain Webhook node receiving a file (multipart field "data"): the webhook process stores the
 * binary data in the database, a worker reads it and uploads it with Wait for Completion; the
 * webhook process answers with the finished scan (Respond: When Last Node Finishes).
 */
export const UPLOAD_WORKFLOW = {
	id: 'docscanQueueUpl1',
	name: 'queue e2e: upload a received file and wait',
	active: false,
	nodes: [
		node(
			'Receive file',
			'n8n-nodes-base.webhook',
			2,
			{
				httpMethod: 'POST',
				path: 'queue-e2e-upload',
				responseMode: 'lastNode',
				responseData: 'firstEntryJson',
				options: {},
			},
			{ webhookId: '9e0e0000-0000-4000-8000-00000000a001' },
		),
		node(
			'Upload',
			ACTION,
			1,
			{
				resource: 'scan',
				operation: 'upload',
				templateId: { __rl: true, mode: 'id', value: '={{ $json.body.template_id }}' },
				binaryPropertyName: 'data',
				waitForCompletion: true,
				options: {},
			},
			{ credentials },
		),
	],
	connections: { 'Receive file': link('Upload') },
	settings: { executionOrder: 'v1' },
};

export const TRIGGER_WEBHOOK_ID = '9e0e0000-0000-4000-8000-00000000a002';

/** Document Scanning Trigger -> No Op (the load test's signed deliveries land here). */
export const TRIGGER_WORKFLOW = {
	id: 'docscanQueueTrg1',
	name: 'queue e2e: scan events',
	active: false,
	nodes: [
		node(
			'Scan events',
			`${PACKAGE_NAME}.documentScanningTrigger`,
			1,
			{ events: ['scan.completed', 'scan.failed'], options: {} },
			{
				credentials,
				webhookId: TRIGGER_WEBHOOK_ID,
			},
		),
		node('Done', 'n8n-nodes-base.noOp', 1, {}),
	],
	connections: { 'Scan events': link('Done') },
	settings: { executionOrder: 'v1' },
};

export const PLAIN_PATH = 'queue-e2e-plain';

/** n8n's own Webhook node (v2, static parameters) -> No Op: the comparison for the load test. */
export const PLAIN_WORKFLOW = {
	id: 'docscanQueuePln1',
	name: 'queue e2e: plain webhook',
	active: false,
	nodes: [
		node(
			'Webhook',
			'n8n-nodes-base.webhook',
			2,
			{ httpMethod: 'POST', path: PLAIN_PATH, options: {} },
			{
				webhookId: '9e0e0000-0000-4000-8000-00000000a003',
			},
		),
		node('Done', 'n8n-nodes-base.noOp', 1, {}),
	],
	connections: { Webhook: link('Done') },
	settings: { executionOrder: 'v1' },
};

export const PLAIN_V1_PATH = 'queue-e2e-plain-v1';

/**
 * The same with the Webhook node at typeVersion 1: the second comparison. n8n 2.x's webhook process
 * skips its per-request expression isolate only for its own Webhook node v2+ with static
 * parameters; v1 takes the path every other trigger (n8n's app triggers and this package's) takes.
 */
export const PLAIN_V1_WORKFLOW = {
	id: 'docscanQueuePln2',
	name: 'queue e2e: plain webhook v1',
	active: false,
	nodes: [
		node(
			'Webhook',
			'n8n-nodes-base.webhook',
			1,
			{ httpMethod: 'POST', path: PLAIN_V1_PATH, options: {} },
			{
				webhookId: '9e0e0000-0000-4000-8000-00000000a004',
			},
		),
		node('Done', 'n8n-nodes-base.noOp', 1, {}),
	],
	connections: { Webhook: link('Done') },
	settings: { executionOrder: 'v1' },
};

/** Document Scanning Poll Trigger (every minute) -> No Op: polled by main, run on the workers. */
export const POLL_WORKFLOW = {
	id: 'docscanQueuePol1',
	name: 'queue e2e: poll trigger',
	active: false,
	nodes: [
		node(
			'Poll scans',
			`${PACKAGE_NAME}.documentScanningPollTrigger`,
			1,
			{
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				events: ['scan.completed', 'scan.failed'],
				options: {},
			},
			{ credentials },
		),
		node('Done', 'n8n-nodes-base.noOp', 1, {}),
	],
	connections: { 'Poll scans': link('Done') },
	settings: { executionOrder: 'v1' },
};

/**
 * Manual Trigger -> Code (N small PDFs as base64, names batch-<tag>-<i>.pdf) -> Convert to File
 * -> Upload (If Already Uploaded: Return Existing Scan). The tag and the count come from the
 * pinned-free parameters below, set per run by batchWorkflow(); Concurrency when given.
 * @param {{ id: string, tag: string, count: number, concurrency?: number }} options
 */
export function batchWorkflow({ id, tag, count, concurrency }) {
	const code = [
		`const out = [];`,
		`for (let i = 0; i < ${count}; i++) {`,
		`  const name = 'batch-${tag}-' + i + '.pdf';`,
		`  const pdf = '%PDF-1.4\\n% ' + name + '\\n';`,
		`  out.push({ json: { name, pdf: Buffer.from(pdf).toString('base64') } });`,
		`}`,
		`return out;`,
	].join('\n');
	return {
		id,
		name: `queue e2e: batch of ${count} uploads (${tag})`,
		active: false,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, {}),
			node('Make files', 'n8n-nodes-base.code', 2, { jsCode: code }),
			node('To file', 'n8n-nodes-base.convertToFile', 1.1, {
				operation: 'toBinary',
				sourceProperty: 'pdf',
				binaryPropertyName: 'data',
				options: { fileName: '={{ $json.name }}', mimeType: 'application/pdf' },
			}),
			node(
				'Upload',
				ACTION,
				1,
				{
					resource: 'scan',
					operation: 'upload',
					templateId: { __rl: true, mode: 'id', value: '1' },
					binaryPropertyName: 'data',
					waitForCompletion: false,
					// One e2e run sends more than an account's 200 uploads an hour (load, fault, re-run):
					// the fault part moves the sandbox's clock an hour on before its batch.
					options: {
						onDuplicate: 'returnExisting',
						...(concurrency === undefined ? {} : { concurrency }),
					},
				},
				{ credentials },
			),
		],
		connections: {
			Start: link('Make files'),
			'Make files': link('To file'),
			'To file': link('Upload'),
		},
		settings: { executionOrder: 'v1' },
	};
}

/** 100 uploads in one execution (load test). */
export const BATCH_LOAD_WORKFLOW = batchWorkflow({
	id: 'docscanQueueBat1',
	tag: 'load',
	count: 100,
});
/**
 * 100 uploads, the run a worker is killed in (fault test), then run again. Five at a time (with
 * the sandbox's 150 ms latency about 3 s for the batch), so the kill lands in the middle of it.
 */
export const BATCH_FAULT_WORKFLOW = batchWorkflow({
	id: 'docscanQueueBat2',
	tag: 'fault',
	count: 100,
	concurrency: 5,
});

/**
 * Imports examples/<file> as workflow `id` (inactive; 16 letters and digits, as n8n makes them:
 * n8n saves static data only for such an ID) into the queue run's database, after
 * `credentials` (records with their data, e.g. a Postgres one for the run's PostgreSQL); the
 * sandbox credential is the run's own. Resolves with the example.
 * @param {{ procs: { main: { env: Record<string, string> } } }} ctx
 * @param {string} file
 * @param {string} id
 * @param {object[]} [credentials]
 */
export async function importExample(ctx, file, id, credentials = []) {
	const env = ctx.procs.main.env;
	const dir = path.join(env.N8N_USER_FOLDER, 'import', id);
	mkdirSync(dir, { recursive: true });
	const example = localExample(file);
	const steps = [];
	if (credentials.length > 0) {
		writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify(credentials));
		steps.push(['import:credentials', 'credentials.json']);
	}
	writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({ ...example, id, active: false }));
	steps.push(['import:workflow', `${id}.json`]);
	for (const [what, name] of steps) {
		const r = n8nSync([what, `--input=${path.join(dir, name)}`], { env });
		if (r.status !== 0 || /An error occurred/i.test(r.stdout + r.stderr))
			throw new Error(`n8n ${what} failed (exit ${r.status}): ${r.stdout}${r.stderr}`);
	}
	// The CLI blocked the event loop: let it see the sockets n8n closed meanwhile, so that the
	// next REST call does not reuse one.
	for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
	return example;
}
