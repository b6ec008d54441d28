/** The names saved in workflows (CONTRACT.md) and the package metadata n8n reads. */
import fs from 'node:fs';
import path from 'node:path';

import type { INodeProperties, INodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { ACTION_NODE_TYPE, loadPackage, PACKAGE_DIR } from '../support/package';

let nodeType: INodeType;
beforeAll(async () => {
	const { nodeTypes } = await loadPackage();
	nodeType = nodeTypes.getByNameAndVersion(ACTION_NODE_TYPE, 1) as INodeType;
});

const CONTRACT: Record<string, Record<string, string[]>> = {
	scan: {
		upload: ['templateId', 'binaryPropertyName', 'waitForCompletion'],
		get: ['scanId', 'waitForCompletion'],
		getAll: ['returnAll', 'limit', 'filters'],
	},
	template: { getAll: ['returnAll', 'limit'] },
	account: { get: [] },
	webhook: {
		create: ['name', 'url', 'events'],
		getAll: [],
		delete: ['webhookId'],
		getLogs: ['webhookId'],
	},
};

/** Top-level parameters n8n shows for a resource/operation (displayOptions resolved by n8n itself). */
function visibleParameters(resource: string, operation: string): INodeProperties[] {
	const values = { resource, operation, returnAll: false, waitForCompletion: false };
	return nodeType.description.properties.filter((property) =>
		NodeHelpers.displayParameter(
			values,
			property,
			{ typeVersion: 1 } as never,
			nodeType.description,
		),
	);
}

test('node type name, tool use, credential', () => {
	expect(nodeType.description.name).toBe('documentScanning');
	expect(nodeType.description.usableAsTool).toBe(true);
	expect(nodeType.description.credentials).toEqual([
		{ name: 'documentScanningApi', required: true },
	]);
});

test('resources and operations are exactly the contract ones', () => {
	const resource = nodeType.description.properties.find((p) => p.name === 'resource')!;
	expect(resource.options!.map((o) => (o as { value: string }).value).sort()).toEqual(
		Object.keys(CONTRACT).sort(),
	);
	for (const [name, operations] of Object.entries(CONTRACT)) {
		const operation = visibleParameters(name, '').find((p) => p.name === 'operation')!;
		expect(operation.options!.map((o) => (o as { value: string }).value).sort()).toEqual(
			Object.keys(operations).sort(),
		);
	}
});

test.each(
	Object.entries(CONTRACT).flatMap(([resource, operations]) =>
		Object.entries(operations).map(([operation, names]) => [resource, operation, names] as const),
	),
)('%s → %s has the contract parameters', (resource, operation, names) => {
	const visible = visibleParameters(resource, operation).map((p) => p.name);
	for (const name of names) expect(visible).toContain(name);
	// Nothing else besides resource, operation and the options collection.
	expect(
		visible.filter((n) => !['resource', 'operation', 'options', ...names].includes(n)),
	).toEqual([]);
});

test('parameter shapes fixed by the contract', () => {
	const upload = visibleParameters('scan', 'upload');
	const templateId = upload.find((p) => p.name === 'templateId')!;
	expect(templateId.type).toBe('resourceLocator');
	expect(templateId.modes!.map((m) => m.name)).toEqual(['list', 'id']);
	expect(templateId.modes![0].typeOptions?.searchListMethod).toBe('searchTemplates');
	expect(nodeType.methods?.listSearch?.searchTemplates).toEqual(expect.any(Function));
	expect(upload.find((p) => p.name === 'binaryPropertyName')!.default).toBe('data');
	expect(upload.find((p) => p.name === 'waitForCompletion')!.default).toBe(false);

	const filters = visibleParameters('scan', 'getAll').find((p) => p.name === 'filters')!;
	const filterNames = (filters.options as INodeProperties[]).map((o) => o.name).sort();
	expect(filterNames).toEqual(['status', 'templateId']);
	const status = (filters.options as INodeProperties[]).find((o) => o.name === 'status')!;
	expect(status.options!.map((o) => (o as { value: string }).value).sort()).toEqual([
		'completed',
		'failed',
		'processing',
		'uploaded',
		'validation_failed',
	]);

	const events = visibleParameters('webhook', 'create').find((p) => p.name === 'events')!;
	expect(events.type).toBe('multiOptions');
	expect(events.options!.map((o) => (o as { value: string }).value)).toEqual([
		'scan.completed',
		'scan.failed',
	]);
});

test('the codex file is built next to the node and names the node type', () => {
	const codexPath = path.join(
		PACKAGE_DIR,
		'dist/nodes/DocumentScanning/DocumentScanning.node.json',
	);
	const codex = JSON.parse(fs.readFileSync(codexPath, 'utf8'));
	expect(codex).toEqual(
		expect.objectContaining({
			node: ACTION_NODE_TYPE,
			nodeVersion: '1.0',
			codexVersion: '1.0',
			categories: expect.arrayContaining(['Productivity']),
		}),
	);
	expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
	expect(codex.resources.credentialDocumentation[0].url).toMatch(/^https:\/\//);
});
