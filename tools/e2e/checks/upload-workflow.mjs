// The workflows the upload checks import and run with `n8n execute`: a Manual Trigger "Start", a
// Code node "PDFs" and Document Scanning nodes (version 1.1) under a sandbox credential.
import { CREDENTIAL, PACKAGE_NAME } from '../../n8n/local.mjs';

/** The Manual Trigger `n8n execute` starts from. */
export function startNode(id) {
	return {
		parameters: {},
		id: `${id}-start`,
		name: 'Start',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
	};
}

/** Code "PDFs": `count` items `{ i }` with a PDF `${prefix}-${i}.pdf`, the same bytes for the same stamp. */
export function pdfsNode(id, { count, stamp, prefix }, position) {
	const jsCode = [
		`return Array.from({ length: ${count} }, (_, i) => {`,
		`  const text = '%PDF-1.4\\n% e2e ${stamp} ' + i + '\\n%%EOF\\n';`,
		`  return { json: { i }, binary: { data: { data: Buffer.from(text).toString('base64'), mimeType: 'application/pdf', fileName: '${prefix}-' + i + '.pdf', fileExtension: 'pdf' } } };`,
		`});`,
	].join('\n');
	return {
		parameters: { jsCode },
		id: `${id}-pdfs`,
		name: 'PDFs',
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		position,
	};
}

/** A Document Scanning node (version 1.1); `onError: 'continueRegularOutput'` is Continue On Fail. */
export function scanningNode(id, name, position, parameters, { credential = CREDENTIAL, onError }) {
	return {
		parameters,
		id: `${id}-${name}`,
		name,
		type: `${PACKAGE_NAME}.documentScanning`,
		typeVersion: 1.1,
		position,
		...(onError ? { onError } : {}),
		credentials: { documentScanningApi: { id: credential.id, name: credential.name } },
	};
}

/** Upload's parameters: the `data` binary to template `templateId` (an ID or an expression), plus `more`. */
export function uploadParameters(more, templateId = '1') {
	return {
		resource: 'scan',
		operation: 'upload',
		templateId: { __rl: true, mode: 'id', value: templateId },
		binaryPropertyName: 'data',
		...more,
	};
}

/**
 * Start → PDFs (see pdfsNode) → Upload (`parameters` added to uploadParameters).
 * @param {string} id
 * @param {string} name
 * @param {{ count: number, stamp: string, prefix: string }} batch
 * @param {{ parameters?: object, templateId?: string, onError?: string }} [upload]
 */
export function uploadBatchWorkflow(id, name, batch, { parameters, templateId, onError } = {}) {
	return {
		id,
		name,
		active: false,
		nodes: [
			startNode(id),
			pdfsNode(id, batch, [220, 0]),
			scanningNode(id, 'Upload', [440, 0], uploadParameters(parameters, templateId), { onError }),
		],
		connections: {
			Start: { main: [[{ node: 'PDFs', type: 'main', index: 0 }]] },
			PDFs: { main: [[{ node: 'Upload', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}
