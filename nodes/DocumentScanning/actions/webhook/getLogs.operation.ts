import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { toItems } from '../../execution/items';
import { runsAsTool } from '../../execution/tool';
import { apiRequestList } from '../../../shared/transport';
import { optionsCollection, shownFor } from '../common.descriptions';
import { webhookIdOf, webhookIdProperty } from './shared';

export const description = shownFor('webhook', 'getLogs', [webhookIdProperty, optionsCollection()]);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const webhookId = webhookIdOf(this, itemIndex);
	// ISO text, or a number of seconds (below 10^12) or milliseconds since the epoch.
	const time = ({ created_at: at }: { created_at?: unknown }) =>
		typeof at === 'number' ? (at < 1e12 ? at * 1000 : at) : Date.parse(String(at)) || 0;
	const path = `/webhooks/${webhookId}/logs`;
	const logs = await apiRequestList.call(this, { method: 'GET', path, itemIndex });
	logs.sort((a, b) => time(b) - time(a)); // newest first, whatever the service's order (not shown)
	if (!runsAsTool(this.getNode())) return toItems(logs, itemIndex);
	const shown = logs.slice(0, 20); // a model's answer: the 20 newest, and how many there are
	const answer = { webhook_id: webhookId, total: logs.length, shown: shown.length, logs: shown };
	return toItems([answer], itemIndex);
}
