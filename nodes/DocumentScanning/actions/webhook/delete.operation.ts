import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { toItems } from '../../execution/items';
import { refusal, runsAsTool } from '../../execution/tool';
import { apiRequest, apiRequestList } from '../../../shared/transport';
import { optionsCollection, shownFor } from '../common.descriptions';
import { webhookIdOf, webhookIdProperty } from './shared';

export const description = shownFor('webhook', 'delete', [webhookIdProperty, optionsCollection()]);

/** Named `n8n: …` in any case, spacing or form (`\u00a0N8N:`, `Ｎ８Ｎ：`), or sending to an n8n trigger's URL. */
const isTriggers = (hook?: { name?: unknown; url?: unknown }) =>
	/^n8n:/i.test(
		String(hook?.name)
			.normalize('NFKC')
			.replace(/[\s\p{Cf}]/gu, ''),
	) || /^[a-z][\w+.-]*:\/\/[^/?#]*\/([^?#]*\/)?webhook(-test)?\//i.test(String(hook?.url));

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const webhookId = webhookIdOf(this, itemIndex);
	if (runsAsTool(this.getNode())) {
		const list = await apiRequestList.call(this, { method: 'GET', path: '/webhooks', itemIndex });
		const hook = list.find((w) => Number(w.id) === webhookId);
		if (isTriggers(hook))
			throw refusal(
				this,
				`Webhook ${webhookId} ("${String(hook?.name)}") belongs to a Document Scanning Trigger or another n8n trigger: deleting it would stop that trigger without a word`,
				'Nothing was deleted. To stop the trigger, deactivate its workflow in n8n, which deletes the webhook.',
			);
	}
	// The answer's shape is not specified (it may be empty, e.g. 204): the output is fixed.
	await apiRequest.call(this, { method: 'DELETE', path: `/webhooks/${webhookId}`, itemIndex });
	return toItems([{ deleted: true, id: webhookId }], itemIndex);
}
