/**
 * Helpers for the action node tests: sandbox lifecycle, document bytes, a shorter
 * `runNode` call, and a LoadOptions context (n8n-core's own) for the list search method.
 */
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { LoadOptionsContext } from 'n8n-core';

import {
	credentialsFor,
	TestCredentialsHelper,
	type TestEnvironment,
} from '../support/credentials';
import { ACTION_NODE_TYPE, CREDENTIAL_TYPE, loadPackage } from '../support/package';
import { runNode, type RunResult } from '../support/run-node';
import {
	DEFAULT_API_KEY,
	startSandbox,
	type Sandbox,
	type SandboxOptions,
} from '../../sandbox/server';

/** Starts one sandbox for a test file, resets it before each test and closes it at the end. */
export function useSandbox(options: SandboxOptions = {}): {
	get: () => Sandbox;
	env: (extra?: Partial<TestEnvironment>) => TestEnvironment;
} {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ processingDelayMs: 30, ...options });
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	beforeEach(() => {
		sandbox?.control.reset();
	});
	const get = () => {
		if (!sandbox) throw new Error('sandbox not started');
		return sandbox;
	};
	return {
		get,
		env: (extra = {}) => ({ baseUrl: get().baseUrl, apiKey: DEFAULT_API_KEY, ...extra }),
	};
}

/** A resource locator value as saved in a workflow. */
export function rl(value: string | number, mode: 'id' | 'list' = 'id'): IDataObject {
	return { __rl: true, mode, value: String(value) };
}

/** Scan → Upload parameters: template 1, the file in binary property "data", plus `extra`. */
export function uploadParams(extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		resource: 'scan',
		operation: 'upload',
		templateId: rl(1),
		binaryPropertyName: 'data',
		...extra,
	};
}

/** Scan → Get Many parameters: every scan of `status` (Return All), plus `extra`. */
export function getManyParams(status: string, extra: Record<string, unknown> = {}) {
	return { resource: 'scan', operation: 'getAll', returnAll: true, filters: { status }, ...extra };
}

/** The node version new workflows get: uploads carry the content fingerprint by default. */
export const LATEST = 1.1;

/** Fast wait settings for tests. */
export const FAST_WAIT: IDataObject = { pollInterval: 0.02, maxPollInterval: 0.1, waitTimeout: 10 };

export async function run(
	env: TestEnvironment,
	parameters: Record<string, unknown>,
	items?: Array<INodeExecutionData | { json: IDataObject }>,
	continueOnFail = false,
	typeVersion?: number,
): Promise<RunResult> {
	return await runNode({
		parameters: parameters as INodeParameters,
		items: items as INodeExecutionData[] | undefined,
		env,
		continueOnFail,
		typeVersion,
	});
}

/** The JSON of every output item. */
export function jsonOf(result: RunResult): IDataObject[] {
	return result.output.map((item) => item.json);
}

/** The scan IDs of the output items. */
export function idsOf(result: RunResult): number[] {
	return jsonOf(result).map((s) => Number(s.id));
}

/** The input index every output item is paired to. */
export function pairedOf(result: RunResult): number[] {
	return result.output.map((item) => {
		const paired = item.pairedItem;
		if (typeof paired === 'number') return paired;
		if (Array.isArray(paired)) return paired[0]?.item ?? -1;
		return paired?.item ?? -1;
	});
}

/**
 * Calls a `listSearch` method of the action node through n8n-core's LoadOptionsContext,
 * as the editor does when the user opens the "From List" mode of a resource locator.
 */
export async function callListSearch(
	env: TestEnvironment,
	method: string,
	filter?: string,
	parameters: INodeParameters = { resource: 'scan', operation: 'upload' },
): Promise<unknown> {
	const { nodeTypes, credentialTypes } = await loadPackage();
	const nodeType = nodeTypes.getByNameAndVersion(ACTION_NODE_TYPE, 1) as INodeType;
	const node: INode = {
		id: 'node-under-test',
		name: 'Document Scanning',
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: '1', name: 'Document Scanning account' } },
	};
	const workflow = new Workflow({
		id: 'load-options',
		nodes: [node],
		connections: {},
		nodeTypes,
		active: false,
		settings: { executionOrder: 'v1' },
	});
	const credentialsHelper = new TestCredentialsHelper(credentialTypes, {
		[CREDENTIAL_TYPE]: credentialsFor(env),
	});
	const additionalData = {
		credentialsHelper,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		variables: {},
		currentNodeExecutionIndex: 0,
	} as unknown as IWorkflowExecuteAdditionalData;
	const ctx = new LoadOptionsContext(workflow, node, additionalData, 'parameters.templateId');
	const search = nodeType.methods?.listSearch?.[method];
	if (!search) throw new Error(`No listSearch method ${method}`);
	return await search.call(ctx, filter);
}

/**
 * A request log without the upload's limit check: the GET /account and the hour's GET /scans
 * (no template filter) sent before the first upload of a batch of two or more.
 */
export function withoutLimitCheck<
	T extends { method: string; path: string; query?: Record<string, string> },
>(log: T[]): T[] {
	const first = log.findIndex((entry) => entry.method === 'POST');
	const check = (entry: T, index: number) =>
		(first < 0 || index < first) &&
		entry.method === 'GET' &&
		(entry.path === '/account' ||
			(entry.path === '/scans' && entry.query?.template_id === undefined));
	return log.filter((entry, index) => !check(entry, index));
}
