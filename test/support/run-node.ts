/**
 * A small test harness that runs this package's nodes through n8n-core's real execution
 * engine, the way n8n's own `packages/core/nodes-testing` does (which n8n-core does not ship):
 *
 * - the built package is loaded with n8n-core's `PackageDirectoryLoader`, exactly as n8n
 *   loads an installed community package (package.json `n8n` section → dist files);
 * - workflows run in `WorkflowExecute` with `ExecutionLifecycleHooks`;
 * - credentials go through a credentials helper that applies the credential type's
 *   `authenticate` the way n8n's CLI does (generic: header keys and values resolved as
 *   expressions), so requests really carry the API key;
 * - trigger nodes get n8n-core's `HookContext` (activation/deactivation) and
 *   `WebhookContext` (deliveries), fed with real HTTP requests.
 *
 * Requires `npm run build` first (npm test does it).
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import {
	ExecutionLifecycleHooks,
	HookContext,
	PackageDirectoryLoader,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	createDeferredPromise,
	createRunExecutionData,
	ICredentialsHelper,
	isExpression,
	NodeConnectionTypes,
	NodeHelpers,
	Workflow,
} from 'n8n-workflow';

export const PACKAGE_DIR = path.resolve(__dirname, '../..');
export const PACKAGE_NAME = 'n8n-nodes-document-scanning';
export const ACTION_NODE_TYPE = `${PACKAGE_NAME}.documentScanning`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.documentScanningTrigger`;
export const CREDENTIAL_TYPE = 'documentScanningApi';
const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';

// ---------------------------------------------------------------------------------------
// Loading the package as n8n does
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Credentials helper, applying `authenticate` as n8n's CLI does
// ---------------------------------------------------------------------------------------

export class TestCredentialsHelper extends ICredentialsHelper {
	/** Every request the nodes authenticated, for assertions (method + url only). */
	readonly authenticated: Array<{ method?: string; url: string }> = [];

	constructor(
		private readonly credentialTypes: Record<string, ICredentialType>,
		private readonly credentials: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const type = this.credentialTypes[typeName];
		this.authenticated.push({ method: requestOptions.method, url: String(requestOptions.url) });
		const { authenticate } = type;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (authenticate?.type === 'generic') {
			const resolve = (value: string) =>
				isExpression(value)
					? String(
							workflow.expression.getSimpleParameterValue(
								node,
								value,
								'internal',
								{ $credentials: credentials },
								undefined,
								'',
							) ?? '',
						)
					: value;
			for (const [outerKey, entries] of Object.entries(authenticate.properties)) {
				const target = ((requestOptions as unknown as IDataObject)[outerKey] ??= {}) as IDataObject;
				for (const [key, value] of Object.entries(entries as IDataObject)) {
					target[resolve(key)] = resolve(String(value));
				}
			}
		}
		return requestOptions;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(_details: INodeCredentialsDetails, _type: string): Promise<ICredentials> {
		throw new Error('getCredentials is not used by these nodes');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const found = this.credentials[type];
		if (!found) throw new Error(`No test credentials of type ${type}`);
		return { ...found };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.credentialTypes[type]?.properties ?? [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}
}

// ---------------------------------------------------------------------------------------
// Workflows
// ---------------------------------------------------------------------------------------

export interface TestEnvironment {
	baseUrl: string;
	apiKey: string;
	authHeader?: 'authorization' | 'xApiKey';
}

export function credentialsFor(env: TestEnvironment): ICredentialDataDecryptedObject {
	return {
		baseUrl: env.baseUrl,
		apiKey: env.apiKey,
		authHeader: env.authHeader ?? 'authorization',
	};
}

export function additionalDataFor(
	credentialsHelper: ICredentialsHelper,
	hooks: ExecutionLifecycleHooks | undefined,
	urls: { webhookBaseUrl?: string; webhookTestBaseUrl?: string } = {},
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		hooks,
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not used in these tests');
		},
		getRunExecutionData: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		webhookBaseUrl: urls.webhookBaseUrl ?? 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: urls.webhookTestBaseUrl ?? 'http://localhost:5678/webhook-test',
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('Task runners are not used in these tests');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

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
			typeVersion: 1,
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

/** An input item carrying a file as binary data, the way n8n's Read File / HTTP nodes make them. */
export function binaryItem(
	content: Buffer,
	fileName: string,
	mimeType: string,
	json: IDataObject = {},
	property = 'data',
): INodeExecutionData {
	return {
		json,
		binary: {
			[property]: {
				data: content.toString('base64'),
				mimeType,
				fileName,
				fileExtension: path.extname(fileName).slice(1),
				fileSize: String(content.length),
			},
		},
	};
}

// ---------------------------------------------------------------------------------------
// Trigger nodes: activation hooks and webhook deliveries
// ---------------------------------------------------------------------------------------

export interface TriggerHarnessOptions {
	parameters: INodeParameters;
	env: TestEnvironment;
	/** Address the service should deliver to (e.g. a local receiver), without trailing slash. */
	webhookBaseUrl: string;
	webhookTestBaseUrl?: string;
	/** Shared static data of the workflow, to simulate a restart keep the same object. */
	staticData?: IDataObject;
	nodeName?: string;
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
			typeVersion: 1,
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

/**
 * What n8n 1.123's webhook server answers (responseMode onReceived) when the node did not
 * answer itself: without workflowData `webhookResponse` or "Webhook call received"; with it
 * the description's `responseData`, which defaults to the literal text 'firstEntryJson'
 * (webhook-helpers.js + webhook-on-received-response-extractor.js); 'noData' is empty.
 */
function onReceivedAnswer(
	description: IWebhookDescription | undefined,
	result: IWebhookResponseData,
): unknown {
	if (result.workflowData === undefined)
		return result.webhookResponse ?? { message: 'Webhook call received' };
	const responseData = description?.responseData ?? 'firstEntryJson';
	if (responseData === 'noData') return undefined;
	if (responseData) return responseData;
	return result.webhookResponse ?? { message: 'Workflow was started' };
}

// ---------------------------------------------------------------------------------------
// A local HTTP receiver that plays n8n's webhook endpoint
// ---------------------------------------------------------------------------------------

export interface IncomingMessageWithBody extends IncomingMessage {
	rawBody: Buffer;
	body: unknown;
	query: IDataObject;
	params: IDataObject;
}

/**
 * Parses a request the way n8n's webhook server does: the raw bytes are kept as `rawBody`,
 * JSON is parsed into `body`.
 */
export async function readRequest(req: IncomingMessage): Promise<IncomingMessageWithBody> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	const raw = Buffer.concat(chunks);
	const withBody = req as IncomingMessageWithBody;
	withBody.rawBody = raw;
	withBody.query = Object.fromEntries(new URL(req.url ?? '/', 'http://localhost').searchParams);
	withBody.params = {};
	const type = String(req.headers['content-type'] ?? '');
	try {
		withBody.body = type.includes('json') && raw.length ? JSON.parse(raw.toString('utf8')) : {};
	} catch {
		withBody.body = {};
	}
	return withBody;
}

interface ExpressLikeResponse extends ServerResponse {
	sentStatus?: number;
	sentBody?: unknown;
	status(code: number): ExpressLikeResponse;
	json(body: unknown): ExpressLikeResponse;
	send(body?: unknown): ExpressLikeResponse;
}

function expressLikeResponse(res: ServerResponse): ExpressLikeResponse {
	const response = res as ExpressLikeResponse;
	response.status = (code: number) => {
		response.statusCode = code;
		response.sentStatus = code;
		return response;
	};
	response.json = (body: unknown) => {
		response.sentStatus = response.statusCode;
		response.sentBody = body;
		response.setHeader('Content-Type', 'application/json');
		response.end(JSON.stringify(body));
		return response;
	};
	response.send = (body?: unknown) => {
		response.sentStatus = response.statusCode;
		response.sentBody = body;
		if (typeof body === 'object' && body !== null && !Buffer.isBuffer(body))
			return response.json(body);
		response.end(body as string | Buffer | undefined);
		return response;
	};
	return response;
}

export interface Receiver {
	/** Base URL to hand to the trigger as n8n's webhook base URL. */
	baseUrl: string;
	results: WebhookCallResult[];
	close(): Promise<void>;
	/** Resolves when `count` deliveries have been handled. */
	waitFor(count: number, timeoutMs?: number): Promise<WebhookCallResult[]>;
}

/**
 * A request as n8n's rawBodyReader middleware hands it over before any body parsing: no
 * `rawBody` yet, but `readRawBody()` reads the stream into `rawBody` on demand.
 */
export function lazyRequest(req: IncomingMessage): IncomingMessageWithBody {
	const lazy = req as IncomingMessageWithBody & { readRawBody(): Promise<void> };
	lazy.query = Object.fromEntries(new URL(req.url ?? '/', 'http://localhost').searchParams);
	lazy.params = {};
	lazy.body = {};
	lazy.readRawBody = async () => {
		if (lazy.rawBody) return;
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		lazy.rawBody = Buffer.concat(chunks);
	};
	return lazy;
}

/**
 * Starts a loopback HTTP server that hands every request to the trigger harness. With
 * `keepRawBody: false` it plays a webhook server that kept only the parsed body; with
 * `lazyRawBody: true` one that has not read the body yet but offers `req.readRawBody()`.
 */
export async function startReceiver(
	getHarness: () => TriggerHarness,
	{ keepRawBody = true, lazyRawBody = false } = {},
): Promise<Receiver> {
	const results: WebhookCallResult[] = [];
	const waiters: Array<() => void> = [];
	const server: Server = createServer((req, res) => {
		void (async () => {
			try {
				const request = lazyRawBody ? lazyRequest(req) : await readRequest(req);
				if (!keepRawBody) delete (request as { rawBody?: Buffer }).rawBody;
				results.push(await getHarness().deliver(request, res));
			} catch (error) {
				res.statusCode = 500;
				res.end(String((error as Error).message));
				results.push({ status: 500, body: String((error as Error).message) });
			}
			waiters.splice(0).forEach((wake) => wake());
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/webhook`,
		results,
		close: async () =>
			await new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
		// Generous: a condition wait, so a busy machine only makes it slower, never wrong.
		waitFor: async (count, timeoutMs = 20_000) => {
			const deadline = Date.now() + timeoutMs;
			while (results.length < count) {
				if (Date.now() > deadline) {
					throw new Error(`Expected ${count} deliveries, got ${results.length}`);
				}
				await new Promise<void>((resolve) => {
					waiters.push(resolve);
					setTimeout(resolve, 50);
				});
			}
			return results.slice(0, count);
		},
	};
}

/** `sha256=` + lowercase hex HMAC-SHA256 of the raw body, as the service signs deliveries. */
export function sign(secret: string, rawBody: string | Buffer): string {
	return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

// ---------------------------------------------------------------------------------------
// Credential test, as n8n runs it when the user clicks "Test" / saves the credential
// ---------------------------------------------------------------------------------------

export interface CredentialTestOutcome {
	/** HTTP status, or undefined when no response came back. */
	status?: number;
	/** The request as n8n would send it (URL after expression resolution, header names). */
	url: string;
	headerNames: string[];
	/** Network-level error text, when the request could not be made. */
	networkError?: string;
}

/**
 * Resolves the credential type's `test.request` with the given credential data (expressions
 * in baseURL/url are evaluated as n8n does), applies `authenticate`, and sends it.
 */
export async function runCredentialTest(
	credentials: ICredentialDataDecryptedObject,
): Promise<CredentialTestOutcome> {
	const { nodeTypes, credentialTypes } = await loadPackage();
	const type = credentialTypes[CREDENTIAL_TYPE];
	if (!type.test?.request) throw new Error('The credential type has no test request');
	const node: INode = {
		id: 'credential-test',
		name: 'Credential test',
		type: MANUAL_TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const resolved = workflow.expression.getComplexParameterValue(
		node,
		type.test.request as unknown as INodeParameters,
		'internal',
		{ $credentials: credentials },
		undefined,
		undefined,
		credentials,
	) as unknown as IHttpRequestOptions;
	const helper = new TestCredentialsHelper(credentialTypes, { [CREDENTIAL_TYPE]: credentials });
	const request = await helper.authenticate(
		credentials,
		CREDENTIAL_TYPE,
		{ ...resolved },
		workflow,
		node,
	);
	const url = `${String(request.baseURL ?? '')}${String(request.url)}`;
	const headers = (request.headers ?? {}) as Record<string, string>;
	try {
		const response = await fetch(url, { method: request.method ?? 'GET', headers });
		await response.arrayBuffer();
		return { status: response.status, url, headerNames: Object.keys(headers) };
	} catch (error) {
		const cause = (error as Error & { cause?: Error }).cause;
		return {
			url,
			headerNames: Object.keys(headers),
			networkError: String(cause?.message ?? error),
		};
	}
}
