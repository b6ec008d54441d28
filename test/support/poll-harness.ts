/**
 * Runs a polling trigger node the way n8n 1.123 does (n8n-core's `PollContext`, as
 * `ActiveWorkflows.activatePolling` and `TriggersAndPollers.runPoll` use it), plus n8n's
 * persistence of static data, so restarts can be tested:
 *
 * - `activate()`: the immediate poll of an activation; afterwards the static data is saved
 *   (n8n's `ActiveWorkflowManager.add` ends with `saveStaticData`);
 * - `poll()`: a scheduled poll; the static data is saved only when it emits (n8n saves in
 *   `__emit`), otherwise its changes live only in this "process";
 * - `deactivate()`: saves the static data (n8n saves it when a workflow is removed);
 * - `restart()`: a new harness whose workflow reloads the static data last saved;
 * - `fetchTestEvent()`: the poll in manual mode (the editor's "Fetch Test Event").
 *
 * `saveStaticData` saves only when the static data says it changed (`__dataChanged`), as
 * n8n's WorkflowStaticDataService does. Requires `npm run build` first.
 */
import { PollContext } from 'n8n-core';
import type {
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	Workflow as WorkflowType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { additionalDataFor } from './additional-data';
import { credentialsFor, TestCredentialsHelper, type TestEnvironment } from './credentials';
import { CREDENTIAL_TYPE, loadPackage, POLL_TRIGGER_NODE_TYPE } from './package';

const NODE_NAME = 'Document Scanning Poll Trigger';

/** What n8n's database holds for the workflow: the static data as last saved. */
export interface SavedWorkflow {
	staticData: IDataObject;
	/** How many times n8n would have written the static data. */
	saves: number;
}

/** Called with every request the node sends (after authentication), before it goes out. */
export type RequestHook = (request: IHttpRequestOptions) => void | Promise<void>;

class HookedCredentialsHelper extends TestCredentialsHelper {
	hook?: RequestHook;

	async authenticate(
		...args: Parameters<TestCredentialsHelper['authenticate']>
	): Promise<IHttpRequestOptions> {
		const request = await super.authenticate(...args);
		await this.hook?.(request);
		return request;
	}
}

export interface PollHarnessOptions {
	parameters: INodeParameters;
	env: TestEnvironment;
	/** The "database" to load from and save to; a fresh one when omitted. */
	saved?: SavedWorkflow;
}

export class PollHarness {
	readonly saved: SavedWorkflow;

	private constructor(
		readonly workflow: WorkflowType,
		readonly node: INode,
		private readonly nodeType: INodeType,
		private readonly credentialsHelper: HookedCredentialsHelper,
		private readonly options: PollHarnessOptions,
		saved: SavedWorkflow,
	) {
		this.saved = saved;
	}

	static async create(options: PollHarnessOptions): Promise<PollHarness> {
		const { nodeTypes, credentialTypes } = await loadPackage();
		const saved = options.saved ?? { staticData: {}, saves: 0 };
		const node: INode = {
			id: 'poll-trigger-under-test',
			name: NODE_NAME,
			type: POLL_TRIGGER_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: options.parameters,
			credentials: { [CREDENTIAL_TYPE]: { id: '1', name: 'Document Scanning account' } },
		};
		const workflow = new Workflow({
			id: 'poll-workflow',
			name: 'Scan automation (polling)',
			nodes: [node],
			connections: {},
			nodeTypes,
			active: true,
			// A copy, as n8n reads it from the database.
			staticData: JSON.parse(JSON.stringify(saved.staticData)) as IDataObject,
			settings: { executionOrder: 'v1' },
		});
		const credentialsHelper = new HookedCredentialsHelper(credentialTypes, {
			[CREDENTIAL_TYPE]: credentialsFor(options.env),
		});
		const nodeType = nodeTypes.getByNameAndVersion(POLL_TRIGGER_NODE_TYPE, 1) as INodeType;
		return new PollHarness(
			workflow,
			workflow.getNode(NODE_NAME)!,
			nodeType,
			credentialsHelper,
			options,
			saved,
		);
	}

	/** Sets a hook that sees every request before it is sent (e.g. to inject a fault on page 2). */
	onRequest(hook: RequestHook | undefined): void {
		this.credentialsHelper.hook = hook;
	}

	/** The node's part of the live static data (what the running "process" holds). */
	get nodeStaticData(): IDataObject {
		return (this.workflow.staticData[`node:${NODE_NAME}`] ?? {}) as IDataObject;
	}

	/** The node's part of the static data as saved in the "database". */
	get savedNodeStaticData(): IDataObject {
		return (this.saved.staticData[`node:${NODE_NAME}`] ?? {}) as IDataObject;
	}

	private async run(
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<INodeExecutionData[][] | null> {
		const ctx = new PollContext(
			this.workflow,
			this.node,
			additionalDataFor(this.credentialsHelper, undefined),
			mode,
			activation,
		);
		return await this.nodeType.poll!.call(ctx);
	}

	private saveStaticData(): void {
		const data = this.workflow.staticData as IDataObject & { __dataChanged?: boolean };
		if (data.__dataChanged !== true) return;
		this.saved.staticData = JSON.parse(JSON.stringify(data)) as IDataObject;
		this.saved.saves += 1;
		data.__dataChanged = false;
	}

	/** The immediate poll of an activation; a failure fails the activation (nothing saved). */
	async activate(
		activation: WorkflowActivateMode = 'activate',
	): Promise<INodeExecutionData[] | null> {
		const result = await this.run('trigger', activation);
		this.saveStaticData(); // on emit, and at the end of the activation anyway
		return result?.[0] ?? null;
	}

	/** A scheduled poll: its items, or null; static data saved only when it emits. */
	async poll(): Promise<INodeExecutionData[] | null> {
		const result = await this.run('trigger', 'activate');
		if (result !== null) this.saveStaticData();
		return result?.[0] ?? null;
	}

	/** Deactivation saves the static data. */
	deactivate(): void {
		this.saveStaticData();
	}

	/** The editor's "Fetch Test Event": the poll in manual mode. */
	async fetchTestEvent(): Promise<INodeExecutionData[] | null> {
		const result = await this.run('manual', 'manual');
		return result?.[0] ?? null;
	}

	/** n8n restarted (without deactivation): a new harness with the static data last saved. */
	async restart(): Promise<PollHarness> {
		return await PollHarness.create({ ...this.options, saved: this.saved });
	}
}
