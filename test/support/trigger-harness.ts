/**
 * Trigger nodes in a workflow with n8n-core's `HookContext` (activation and deactivation) and
 * `WebhookContext` (deliveries), fed with real HTTP requests.
 */
import { type ServerResponse } from 'node:http';

import { HookContext, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { additionalDataFor } from './additional-data';
import { credentialsFor, TestCredentialsHelper, type TestEnvironment } from './credentials';
import { CREDENTIAL_TYPE, loadPackage, TRIGGER_NODE_TYPE } from './package';
import {
	expressLikeResponse,
	type IncomingMessageWithBody,
	onReceivedAnswer,
} from './webhook-request';

export interface TriggerHarnessOptions {
	parameters: INodeParameters;
	env: TestEnvironment;
	/** Address the service should deliver to (e.g. a local receiver), without trailing slash. */
	webhookBaseUrl: string;
	webhookTestBaseUrl?: string;
	/** Shared static data of the workflow, to simulate a restart keep the same object. */
	staticData?: IDataObject;
	nodeName?: string;
	/** The trigger's node version (default 1). */
	typeVersion?: number;
}

export interface WebhookCallResult {
	/** Status the node answered with (200 when it let n8n answer). */
	status: number;
	body: unknown;
	/** Items that would start an execution; undefined when none is started. */
	workflowData?: INodeExecutionData[][];
}

/**
 * A workflow holding the trigger node, with n8n-core's hook and webhook contexts.
 * `checkExists` / `create` / `delete` are called as n8n calls them on activation and
 * deactivation; `deliver` hands an incoming HTTP request to the node's `webhook()`.
 */
export class TriggerHarness {
	readonly workflow: Workflow;
	readonly node: INode;
	readonly credentialsHelper: TestCredentialsHelper;

	private constructor(
		private readonly nodeType: INodeType,
		workflow: Workflow,
		credentialsHelper: TestCredentialsHelper,
		private readonly options: TriggerHarnessOptions,
	) {
		this.workflow = workflow;
		this.node = workflow.getNode(options.nodeName ?? 'Document Scanning Trigger')!;
		this.credentialsHelper = credentialsHelper;
	}

	static async create(options: TriggerHarnessOptions): Promise<TriggerHarness> {
		const { nodeTypes, credentialTypes } = await loadPackage();
		const nodeName = options.nodeName ?? 'Document Scanning Trigger';
		const node: INode = {
			id: 'trigger-under-test',
			name: nodeName,
			type: TRIGGER_NODE_TYPE,
			typeVersion: options.typeVersion ?? 1,
			position: [0, 0],
			webhookId: '5f0c1c1e-7d4c-4a8e-9d3e-2d8a1f6b9c01',
			parameters: options.parameters,
			credentials: { [CREDENTIAL_TYPE]: { id: '1', name: 'Document Scanning account' } },
		};
		const workflow = new Workflow({
			id: 'trigger-workflow',
			name: 'Scan automation',
			nodes: [node],
			connections: {},
			nodeTypes,
			active: true,
			staticData: options.staticData ?? {},
			settings: { executionOrder: 'v1' },
		});
		const credentialsHelper = new TestCredentialsHelper(credentialTypes, {
			[CREDENTIAL_TYPE]: credentialsFor(options.env),
		});
		const nodeType = nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE, 1) as INodeType;
		return new TriggerHarness(nodeType, workflow, credentialsHelper, options);
	}

	/** The workflow's static data object (what n8n persists between activations). */
	get staticData(): IDataObject {
		return this.workflow.staticData;
	}

	private additionalData(): IWorkflowExecuteAdditionalData {
		return additionalDataFor(this.credentialsHelper, undefined, {
			webhookBaseUrl: this.options.webhookBaseUrl,
			webhookTestBaseUrl: this.options.webhookTestBaseUrl ?? `${this.options.webhookBaseUrl}-test`,
		});
	}

	private webhookData(isTest: boolean): IWebhookData {
		const webhookDescription = this.nodeType.description.webhooks?.find(
			(w) => w.name === 'default',
		);
		if (!webhookDescription) throw new Error('The trigger node declares no default webhook');
		return {
			httpMethod: webhookDescription.httpMethod as IWebhookData['httpMethod'],
			node: this.node.name,
			path: String(webhookDescription.path),
			webhookDescription,
			workflowId: String(this.workflow.id),
			workflowExecuteAdditionalData: this.additionalData(),
			webhookId: this.node.webhookId,
			isTest,
		};
	}

	/** The URL n8n would register for this node (production, or test when `isTest`). */
	webhookUrl(isTest = false): string {
		const ctx = this.hookContext(isTest ? 'manual' : 'trigger', 'activate', isTest);
		return ctx.getNodeWebhookUrl('default')!;
	}

	private hookContext(
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
		isTest: boolean,
	) {
		return new HookContext(
			this.workflow,
			this.node,
			this.additionalData(),
			mode,
			activation,
			this.webhookData(isTest),
		);
	}

	/** Calls `webhookMethods.default[method]` as n8n does when (de)activating the workflow. */
	async hook(
		method: 'checkExists' | 'create' | 'delete',
		{ isTest = false, activation = 'activate' as WorkflowActivateMode } = {},
	): Promise<boolean> {
		const methods = this.nodeType.webhookMethods?.default;
		if (!methods?.[method]) throw new Error(`The trigger node has no webhook method ${method}`);
		const ctx = this.hookContext(isTest ? 'manual' : 'trigger', activation, isTest);
		return await methods[method].call(ctx);
	}

	/** Activation as n8n does it: create only when checkExists says the webhook is not there. */
	async activate(options: { isTest?: boolean } = {}): Promise<void> {
		if (!(await this.hook('checkExists', options))) {
			await this.hook('create', options);
		}
	}

	/** Hands one HTTP request to the node's `webhook()`, like n8n's webhook service. */
	async deliver(
		request: IncomingMessageWithBody,
		response: ServerResponse,
	): Promise<WebhookCallResult> {
		const expressResponse = expressLikeResponse(response);
		const additionalData = this.additionalData();
		additionalData.httpRequest = request as never;
		additionalData.httpResponse = expressResponse as never;
		const ctx = new WebhookContext(
			this.workflow,
			this.node,
			additionalData,
			'trigger',
			this.webhookData(false),
			[],
			null,
		);
		const result: IWebhookResponseData = await this.nodeType.webhook!.call(ctx);
		if (!result.noWebhookResponse && !response.headersSent) {
			const answer = onReceivedAnswer(
				this.nodeType.description.webhooks?.find((w) => w.name === 'default'),
				result,
			);
			response.statusCode = 200;
			if (typeof answer === 'string') {
				response.setHeader('Content-Type', 'text/html; charset=utf-8');
				response.end(answer);
			} else if (answer !== undefined) {
				response.setHeader('Content-Type', 'application/json');
				response.end(JSON.stringify(answer));
			} else {
				response.end();
			}
		}
		return {
			status: expressResponse.sentStatus ?? 200,
			body: expressResponse.sentBody,
			workflowData: result.workflowData,
		};
	}
}
