import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { positiveId } from '../params';
import type { Deferred, ExecutionScope } from '../../execution/scope';
import { toItems } from '../../execution/items';
import { scanShape } from '../../execution/toolAnswer';
import { handOff } from '../../waiting/handOff';
import { apiRequest } from '../../../shared/transport';
import { optionsCollection, outputOption, waitOptions, shownFor } from '../common.descriptions';

const properties: INodeProperties[] = [
	{
		displayName: 'Scan ID',
		name: 'scanId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 1234',
		description: 'ID of the scan, as output by Scan → Upload or by the trigger (scan_id)',
	},
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: false,
		description:
			'Whether to wait until the scan is processed (completed, validation failed or failed) before outputting it',
	},
	optionsCollection(outputOption, ...waitOptions),
];

export const description = shownFor('scan', 'get', properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	scope: ExecutionScope,
): Promise<INodeExecutionData[] | Deferred> {
	const scanId = positiveId(
		this,
		this.getNodeParameter('scanId', itemIndex, ''),
		itemIndex,
		'Scan ID',
	);
	const wait = this.getNodeParameter('waitForCompletion', itemIndex, false) as boolean;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const shape = scanShape(this, options, itemIndex);

	const scan = await apiRequest.call(this, { method: 'GET', path: `/scans/${scanId}`, itemIndex });
	if (!wait) return toItems(shape(scan), itemIndex);
	const templateId = Number(scan.template_id);
	return handOff(this, scope, {
		scan,
		scanId,
		itemIndex,
		options,
		templateId: Number.isInteger(templateId) && templateId > 0 ? templateId : undefined,
	});
}
