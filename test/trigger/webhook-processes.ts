/**
 * n8n's webhook processes as they treat a workflow's static data, for the trigger's tests.
 *
 * In n8n 1.123 and 2.40 (`LiveWebhooks.executeWebhook`, packages/cli/src/webhooks/) every
 * production webhook request loads the workflow, its static data included, from the database
 * when it arrives; the node's `webhook()` runs on that copy; once it has returned, the copy is
 * written back whole (`WorkflowStaticDataService.saveStaticData`) if it changed. Nothing is
 * locked: requests in one process, or in several webhook processes of queue mode, share only
 * the database row. The harness alone keeps one static-data object in memory for every
 * request, which would hide all of this; `WebhookProcess` plays it instead.
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import type { TriggerHarness, WebhookCallResult } from '../support/trigger-harness';
import type { IncomingMessageWithBody } from '../support/webhook-request';

/** The workflow's static data as the database holds it: JSON, read and written whole. */
export class StaticDataDatabase {
	private json = '{}';
	private held: Array<() => void> | undefined;
	/** How many times a request wrote the static data back. */
	writes = 0;

	read(): IDataObject {
		return JSON.parse(this.json) as IDataObject;
	}

	/** Writes `data` back whole (waits while writes are held). */
	async write(data: IDataObject): Promise<void> {
		if (this.held) await new Promise<void>((resolve) => this.held!.push(resolve));
		const { __dataChanged: _flag, ...rest } = JSON.parse(JSON.stringify(data)) as IDataObject;
		this.json = JSON.stringify(rest);
		this.writes += 1;
	}

	/**
	 * Holds every write back until the returned function is called: requests handled meanwhile
	 * all read the static data as it was, as requests in flight at the same moment do. The
	 * writes then happen in the order the requests finished.
	 */
	holdWrites(): () => void {
		const held: Array<() => void> = [];
		this.held = held;
		return () => {
			this.held = undefined;
			for (const release of held) release();
		};
	}
}

/** One webhook process: each request gets its own copy of the static data, as in n8n. */
export class WebhookProcess {
	/** How many deliveries changed the static data (and so wrote it back). */
	deliveryWrites = 0;

	constructor(
		private readonly database: StaticDataDatabase,
		private readonly harnessFor: (staticData: IDataObject) => Promise<TriggerHarness>,
	) {}

	async deliver(
		request: IncomingMessageWithBody,
		response: ServerResponse,
	): Promise<WebhookCallResult> {
		const harness = await this.harnessFor(this.database.read());
		const result = await harness.deliver(request, response);
		if (harness.staticData.__dataChanged === true) {
			this.deliveryWrites += 1;
			await this.database.write(harness.staticData);
		}
		return result;
	}

	/** Activation, as main does it: checkExists / create, then the static data written back. */
	async activate(): Promise<TriggerHarness> {
		const harness = await this.harnessFor(this.database.read());
		await harness.activate();
		await this.database.write(harness.staticData);
		return harness;
	}

	/** Deactivation, as main does it (`clearWebhooks`): delete, then the static data written back. */
	async deactivate(): Promise<void> {
		const harness = await this.harnessFor(this.database.read());
		await harness.hook('delete', { activation: 'update' });
		await this.database.write(harness.staticData);
	}
}
