/**
 * Runs Manual Trigger -> node in n8n-core's `WorkflowExecute` with `ExecutionLifecycleHooks`,
 * the way n8n's own `packages/core/nodes-testing` does (which n8n-core does not ship).
 */

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IRun,
	IRunExecutionData,
	WorkflowExecuteMode,
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
	const { nodeTypes, credentialTypes } = await loadPackage();
	const nodeName = options.nodeName ?? 'Document Scanning';
	const nodes: INode[] = [
		{
			id: 'trigger',
			name: 'Manual Trigger',
			type: MANUAL_TRIGGER_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'node-under-test',
			name: nodeName,
			type: options.nodeType ?? ACTION_NODE_TYPE,
			typeVersion: options.typeVersion ?? 1,
			position: [200, 0],
			parameters: options.parameters,
			credentials: { [CREDENTIAL_TYPE]: { id: '1', name: 'Document Scanning account' } },
			...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		},
	];
	const connections = {
		'Manual Trigger': { main: [[{ node: nodeName, type: NodeConnectionTypes.Main, index: 0 }]] },
	};
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'Test workflow',
		nodes,
		connections,
		nodeTypes,
		active: false,
		settings: { executionOrder: 'v1' },
	});

	const credentialsHelper = new TestCredentialsHelper(credentialTypes, {
		[CREDENTIAL_TYPE]: credentialsFor(options.env),
	});
	const hooks = new ExecutionLifecycleHooks('manual', 'test-execution', {
		id: 'test-workflow',
		name: 'Test workflow',
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
	const additionalData = additionalDataFor(credentialsHelper, hooks);

	const runExecutionData: IRunExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node: workflow.getNode('Manual Trigger')!,
					data: { main: [options.items ?? [{ json: {} }]] },
					source: null,
				},
			],
		},
	});

	const mode: WorkflowExecuteMode = 'manual';
	await new WorkflowExecute(additionalData, mode, runExecutionData).processRunExecutionData(
		workflow,
	);
	const run = await finished.promise;

	const taskData = run.data.resultData.runData[nodeName]?.[0];
	const output = taskData?.data?.main?.[0] ?? [];
	const error = (taskData?.error ?? run.data.resultData.error) as RunResult['error'];
	return { run, output, error, credentialsHelper };
}
