import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { toItems } from '../../execution/items';
import { refusal, runsAsTool } from '../../execution/tool';
import { apiRequest, apiRequestList } from '../../../shared/transport';
import { optionsCollection } from '../common.descriptions';
import { webhookIdOf, webhookIdProperty } from './shared';

const properties: INodeProperties[] = [webhookIdProperty, optionsCollection()];

/** An n8n trigger's URL: its path has /webhook/ or /webhook-test/. */
const N8N_WEBHOOK_URL = /^[a-z][\w+.-]*:\/\/[^/?#]*\/([^?#]*\/)?webhook(-test)?\//i;

/** `n8n: …`, whatever its case, spaces (no-break, zero-width) or compatible forms (Ｎ８Ｎ：). */
const isTriggerName = (name: unknown) =>
	/^n8n:/i.test(
		String(name ?? '')
			.normalize('NFKC')
			.replace(/[\s\p{Cf}]/gu, ''),
	);

const displayOptions = { show: { resource: ['webhook'], operation: ['delete'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const webhookId = webhookIdOf(this, itemIndex);
	if (runsAsTool(this.getNode())) {
		const list = await apiRequestList.call(this, { method: 'GET', path: '/webhooks', itemIndex });
		const hook = list.find((w) => Number(w.id) === webhookId);
		const named = isTriggerName(hook?.name);
		if (named || N8N_WEBHOOK_URL.test(String(hook?.url)))
			throw refusal(
				this,
				`Webhook ${webhookId} ("${String(hook?.name)}") ${named ? 'belongs to a Document Scanning Trigger' : 'sends its events to an n8n workflow’s trigger (a /webhook/ URL)'}: deleting it would stop that trigger without a word`,
				'Nothing was deleted. To stop the trigger, deactivate its workflow in n8n, which deletes the webhook.',
			);
	}
	// The answer's shape is not specified (it may be empty, e.g. 204): the output is fixed.
	await apiRequest.call(this, { method: 'DELETE', path: `/webhooks/${webhookId}`, itemIndex });
	return toItems([{ deleted: true, id: webhookId }], itemIndex);
}
