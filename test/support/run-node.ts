/**
 * Runs Manual Trigger -> node in n8n-core's `WorkflowExecute` with `ExecutionLifecycleHooks`,
 * the way n8n's own `packages/core/nodes-testing` does (which n8n-core does not ship).
 */

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	IConnections,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeTypes,
	IRun,
} from 'n8n-workflow';
import {
	createDeferredPromise,
	createRunExecutionData,
	NodeConnectionTypes,
	Workflow,
} from 'n8n-workflow';
import { additionalDataFor } from './additional-data';
import { credentialsFor, TestCredentialsHelper, type TestEnvironment } from './credentials';
import { ACTION_NODE_TYPE, CREDENTIAL_TYPE, loadPackage, MANUAL_TRIGGER_TYPE } from './package';

export interface RunNodeOptions {
	/** Parameters of the Document Scanning node, as saved in a workflow. */
	parameters: INodeParameters;
	/** Items the Manual Trigger passes to the node; one empty item by default. */
	items?: INodeExecutionData[];
	env: TestEnvironment;
	/** Sets the node's "On Error" to "Continue (using regular output)". */
	continueOnFail?: boolean;
	nodeType?: string;
	nodeName?: string;
	/** The node's version as saved in the workflow; 1 by default (workflows saved before 1.1). */
	typeVersion?: number;
}

export interface RunResult {
	run: IRun;
	/** Output items of the node under test (empty when it failed). */
	output: INodeExecutionData[];
	/** Error of the node under test, when the execution failed. */
	error?: Error & { description?: string | null; httpCode?: string | null; context?: IDataObject };
	credentialsHelper: TestCredentialsHelper;
}

/** Runs Manual Trigger → node through `WorkflowExecute` and returns the node's output. */
export async function runNode(options: RunNodeOptions): Promise<RunResult> {
	const { nodeTypes } = await loadPackage();
	const nodeName = options.nodeName ?? 'Document Scanning';
	const node: INode = {
		id: 'node-under-test',
		name: nodeName,
		type: options.nodeType ?? ACTION_NODE_TYPE,
		typeVersion: options.typeVersion ?? 1,
		position: [200, 0],
		parameters: options.parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: '1', name: 'Document Scanning account' } },
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};
	const { run, credentialsHelper } = await runFromManualTrigger({
		id: 'test',
		nodes: [node],
		connections: {
			'Manual Trigger': { main: [[{ node: nodeName, type: NodeConnectionTypes.Main, index: 0 }]] },
		},
		nodeTypes,
		items: options.items ?? [{ json: {} }],
		env: options.env,
	});
	const taskData = run.data.resultData.runData[nodeName]?.[0];
	const output = taskData?.data?.main?.[0] ?? [];
	const error = (taskData?.error ?? run.data.resultData.error) as RunResult['error'];
	return { run, output, error, credentialsHelper };
}

/**
 * Runs a workflow of a "Manual Trigger" (passing `items` on) and `nodes` through `WorkflowExecute`
 * in manual mode, with the sandbox credential of `env`: the finished run. `id` names the workflow
 * (`<id>-workflow`) and its execution (`<id>-execution`).
 */
export async function runFromManualTrigger(options: {
	id: string;
	nodes: INode[];
	connections: IConnections;
	nodeTypes: INodeTypes;
	items: INodeExecutionData[];
	env: TestEnvironment;
}): Promise<{ run: IRun; credentialsHelper: TestCredentialsHelper }> {
	const { credentialTypes } = await loadPackage();
	const trigger: INode = {
		id: 'trigger',
		name: 'Manual Trigger',
		type: MANUAL_TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const nodes = [trigger, ...options.nodes];
	const { connections } = options;
	const id = `${options.id}-workflow`;
	const name = `${options.id} workflow`;
	const workflow = new Workflow({
		id,
		name,
		nodes,
		connections,
		nodeTypes: options.nodeTypes,
		active: false,
		settings: { executionOrder: 'v1' },
	});
	const credentialsHelper = new TestCredentialsHelper(credentialTypes, {
		[CREDENTIAL_TYPE]: credentialsFor(options.env),
	});
	const hooks = new ExecutionLifecycleHooks('manual', `${options.id}-execution`, {
		id,
		name,
		nodes,
		connections,
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const finished = createDeferredPromise<IRun>();
	hooks.addHandler('workflowExecuteAfter', (run) => finished.resolve(run));
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: workflow.getNode(trigger.name)!, data: { main: [options.items] }, source: null },
			],
		},
	});
	await new WorkflowExecute(
		additionalDataFor(credentialsHelper, hooks),
		'manual',
		runExecutionData,
	).processRunExecutionData(workflow);
	return { run: await finished.promise, credentialsHelper };
}
