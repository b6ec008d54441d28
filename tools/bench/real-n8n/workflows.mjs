// The workflows the real-n8n benchmark runs, one builder each. Every workflow starts with a Manual
// Trigger; times and memory are taken around the measured nodes only (tools/bench/real-n8n/run.mjs).
import { CREDENTIAL, SANDBOX_KEY } from '../../n8n/local.mjs';

/** The do-it-yourself path's fixed wait between the upload and the read (seconds). */
export const WAIT_SECONDS = 5;

const trigger = {
	id: 'trigger',
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/**
 * Edit Fields with one expression, before the measured nodes of both paths: `n8n execute` starts
 * a fresh process, and n8n loads its expression engine at the first expression (about half a
 * second); a running n8n has it loaded. The do-it-yourself path's first expression is in its
 * GET: warmed up, neither path pays the load in its span.
 */
const warmUp = {
	id: 'warm',
	name: 'Warm up',
	type: 'n8n-nodes-base.set',
	typeVersion: 3.4,
	position: [100, 0],
	parameters: {
		assignments: {
			assignments: [{ id: 'w1', name: 'warm', value: '={{ 1 + 1 }}', type: 'number' }],
		},
		options: {},
	},
};

const credentials = { documentScanningApi: { id: CREDENTIAL.id, name: CREDENTIAL.name } };

/** A Code node making `uploads` small distinct PDFs named `real-<label><i>.pdf`. */
function codeNode(uploads, label = '') {
	return {
		id: 'code',
		name: 'Make PDFs',
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		position: [200, 0],
		parameters: {
			jsCode: [
				`const items = [];`,
				`for (let i = 0; i < ${uploads}; i++) {`,
				`  const text = '%PDF-1.4\\n% bench ' + $execution.id + ' ' + Date.now() + ' ' + Math.random() + ' ' + i + '\\n%%EOF\\n';`,
				`  items.push({ json: { i }, binary: { data: { data: Buffer.from(text).toString('base64'), mimeType: 'application/pdf', fileName: 'real-${label}' + i + '.pdf', fileExtension: 'pdf' } } });`,
				`}`,
				`return items;`,
			].join('\n'),
		},
	};
}

/** This package's Scan → Upload of each item's `data`, with the given options. */
export function scanUploadNode({ id, name, wait, options }) {
	return {
		id,
		name,
		type: 'n8n-nodes-document-scanning.documentScanning',
		typeVersion: 1,
		position: [400, 0],
		credentials,
		parameters: {
			resource: 'scan',
			operation: 'upload',
			templateId: { __rl: true, mode: 'id', value: '1' },
			binaryPropertyName: 'data',
			waitForCompletion: wait,
			options,
		},
	};
}

/** n8n's HTTP Request node (v4.2) posting each item's `data` to POST /scans, as a user sets it up. */
export function httpUploadNode(baseUrl, options = {}) {
	return {
		id: 'upload',
		name: 'Upload',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [400, 0],
		parameters: {
			method: 'POST',
			url: `${baseUrl}/scans`,
			sendHeaders: true,
			headerParameters: httpHeaders(),
			sendBody: true,
			contentType: 'multipart-form-data',
			bodyParameters: {
				parameters: [
					{ name: 'template_id', value: '1' },
					{ parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'data' },
				],
			},
			options,
		},
	};
}

function httpHeaders() {
	return {
		parameters: [
			{ name: 'Authorization', value: `Bearer ${SANDBOX_KEY}` },
			{ name: 'Accept', value: 'application/json' },
		],
	};
}

function chain(names) {
	const connections = {};
	for (let i = 0; i + 1 < names.length; i++)
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	return connections;
}

/** A workflow whose nodes run one after another, in the order given. */
function linear(id, name, nodes) {
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes,
		connections: chain(nodes.map((node) => node.name)),
	};
}

/**
 * Code (N PDFs) → Document Scanning (Upload, Wait for Completion, Concurrency if given).
 * @param {string} id
 * @param {{ uploads: number, concurrency?: number, label?: string }} options
 */
export function nodeWorkflow(id, { uploads, concurrency, label }) {
	const options = concurrency === undefined ? {} : { concurrency };
	return linear(id, `bench node ${id}`, [
		trigger,
		warmUp,
		codeNode(uploads, label),
		scanUploadNode({ id: 'scan', name: 'Scan', wait: true, options }),
	]);
}

/**
 * The do-it-yourself path: Code → HTTP Request upload → Wait 5 s → HTTP Request GET /scans/{id}.
 * @param {string} id
 * @param {{ uploads: number, label?: string }} options
 * @param {string} baseUrl
 */
export function diyWorkflow(id, { uploads, label }, baseUrl) {
	return linear(id, `bench diy ${id}`, [
		trigger,
		warmUp,
		codeNode(uploads, label),
		httpUploadNode(baseUrl),
		{
			id: 'wait',
			name: 'Wait',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			position: [600, 0],
			webhookId: '5f0c7c1e-0000-4000-8000-00000000b001',
			parameters: { amount: WAIT_SECONDS, unit: 'seconds' },
		},
		{
			id: 'get',
			name: 'Get',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [800, 0],
			parameters: {
				method: 'GET',
				url: `=${baseUrl}/scans/{{ $json.data ? $json.data.id : $json.id }}`,
				sendHeaders: true,
				headerParameters: httpHeaders(),
				options: {},
			},
		},
	]);
}

/** Document Scanning: Scan → Get Many, Return All. */
export function returnAllWorkflow(id) {
	return linear(id, `bench return all ${id}`, [
		trigger,
		{
			id: 'list',
			name: 'Scan',
			type: 'n8n-nodes-document-scanning.documentScanning',
			typeVersion: 1,
			position: [200, 0],
			credentials,
			parameters: { resource: 'scan', operation: 'getAll', returnAll: true },
		},
	]);
}

/** One upload with waiting and Continue On Fail, Wait Timeout `waitTimeoutS`. */
export function timeoutWorkflow(id, { waitTimeoutS }) {
	const workflow = nodeWorkflow(id, { uploads: 1 });
	const scan = workflow.nodes.find((node) => node.name === 'Scan');
	scan.onError = 'continueRegularOutput';
	scan.parameters.options = { waitTimeout: waitTimeoutS };
	workflow.name = `bench timeout ${id}`;
	return workflow;
}

/**
 * Read/Write Files from Disk reads every PDF of `dir`, then the step measured for memory, which
 * starts at the node named in `stepStart`:
 * - memNode: Document Scanning (Upload at Concurrency `concurrency`, no waiting);
 * - memHttpLoop: Loop Over Items (batches of `concurrency`) → HTTP Request (multipart upload) →
 *   back to the loop: `concurrency` uploads at a time, as a user sets that up with n8n's nodes;
 * - memHttpBatching: HTTP Request with its own option "Batching" (`concurrency` items per batch,
 *   no interval), which starts every request at once and keeps each response until the last.
 */
export function memoryWorkflow(id, { kind, concurrency }, baseUrl, dir) {
	const read = {
		id: 'read',
		name: 'Read files',
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1,
		position: [200, 0],
		parameters: { operation: 'read', fileSelector: `${dir}/*.pdf`, options: {} },
	};
	const name = `bench memory ${kind} ${id}`;
	if (kind === 'memNode')
		return linear(id, name, [
			trigger,
			read,
			scanUploadNode({ id: 'upload', name: 'Upload', wait: false, options: { concurrency } }),
		]);
	if (kind === 'memHttpBatching')
		return linear(id, name, [
			trigger,
			read,
			httpUploadNode(baseUrl, {
				batching: { batch: { batchSize: concurrency, batchInterval: 0 } },
			}),
		]);
	const loop = {
		id: 'loop',
		name: 'Loop',
		type: 'n8n-nodes-base.splitInBatches',
		typeVersion: 3,
		position: [400, 0],
		parameters: { batchSize: concurrency, options: {} },
	};
	const upload = { ...httpUploadNode(baseUrl), position: [600, 100] };
	return {
		...linear(id, name, [trigger, read, loop]),
		nodes: [trigger, read, loop, upload],
		connections: {
			...chain(['Start', 'Read files', 'Loop']),
			Loop: { main: [[], [{ node: 'Upload', type: 'main', index: 0 }]] },
			Upload: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
		},
	};
}

/** The node where the measured step of a memory workflow starts. */
export const STEP_START = { memNode: 'Upload', memHttpLoop: 'Loop', memHttpBatching: 'Upload' };
