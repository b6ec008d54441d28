/**
 * Loads the built package with n8n-core's `PackageDirectoryLoader`, exactly as n8n loads an
 * installed community package (package.json `n8n` section -> dist files), plus the package's
 * names (package, node types, credential type). Requires `npm run build` first (npm test does it).
 */
import path from 'node:path';

import { PackageDirectoryLoader } from 'n8n-core';
import type {
	ICredentialType,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers } from 'n8n-workflow';

import { toolForm } from './tool-form';

export const PACKAGE_DIR = path.resolve(__dirname, '../..');
export const PACKAGE_NAME = 'n8n-nodes-document-scanning';
export const ACTION_NODE_TYPE = `${PACKAGE_NAME}.documentScanning`;
/** The action node's AI tool form (test/support/tool-form.ts). */
export const ACTION_TOOL_TYPE = `${ACTION_NODE_TYPE}Tool`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.documentScanningTrigger`;
export const CREDENTIAL_TYPE = 'documentScanningApi';
export const POLL_TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.documentScanningPollTrigger`;
export const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';

/**
 * Stand-in for n8n-nodes-base's Manual Trigger (that package is not a dependency): it
 * passes on the items the test starts the execution with.
 */
class ManualTriggerStandIn implements INodeType {
	description = {
		displayName: 'When clicking ‘Execute workflow’',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Stand-in for the Manual Trigger',
		defaults: { name: 'Manual Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

export interface LoadedPackage {
	loader: PackageDirectoryLoader;
	nodeTypes: INodeTypes;
	credentialTypes: Record<string, ICredentialType>;
}

let loadedPackage: Promise<LoadedPackage> | undefined;

/** Loads the built package once per test file, with n8n-core's package loader. */
export async function loadPackage(): Promise<LoadedPackage> {
	loadedPackage ??= (async () => {
		const loader = new PackageDirectoryLoader(PACKAGE_DIR);
		await loader.loadAll();
		const manual = new ManualTriggerStandIn();
		const types: Record<string, INodeType | IVersionedNodeType> = {
			[MANUAL_TRIGGER_TYPE]: manual,
		};
		for (const [name, data] of Object.entries(loader.nodeTypes)) {
			types[name.includes('.') ? name : `${PACKAGE_NAME}.${name}`] = data.type;
		}
		types[ACTION_TOOL_TYPE] = toolForm(types[ACTION_NODE_TYPE] as INodeType);
		const nodeTypes: INodeTypes = {
			getByName: (type) => {
				const found = types[type];
				if (!found) throw new Error(`Unknown node type ${type}`);
				return found;
			},
			getByNameAndVersion: (type, version) =>
				NodeHelpers.getVersionedNodeType(nodeTypes.getByName(type), version),
			getKnownTypes: () => ({}),
		};
		const credentialTypes: Record<string, ICredentialType> = {};
		for (const [name, data] of Object.entries(loader.credentialTypes)) {
			credentialTypes[name] = data.type;
		}
		return { loader, nodeTypes, credentialTypes };
	})();
	return await loadedPackage;
}
