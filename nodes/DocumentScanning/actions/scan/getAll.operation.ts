import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { positiveId } from '../params';
import { FINAL_STATUSES } from '../../../shared/scans/status';
import { toItems } from '../../execution/items';
import { refusal, runsAsTool } from '../../execution/tool';
import { scanShape } from '../../execution/toolAnswer';
import type { ChangingFilter } from '../../../shared/transport/paging';
import { readPages } from '../../../shared/transport/paging';
import {
	optionsCollection,
	limitProperty,
	outputOption,
	returnAllProperty,
	templateLocator,
} from '../common.descriptions';

export const SCAN_STATUS_OPTIONS = [
	{ name: 'Completed', value: 'completed' },
	{ name: 'Failed', value: 'failed' },
	{ name: 'Processing', value: 'processing' },
	{ name: 'Uploaded', value: 'uploaded' },
	{ name: 'Validation Failed', value: 'validation_failed' },
];

const properties: INodeProperties[] = [
	returnAllProperty,
	limitProperty,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: SCAN_STATUS_OPTIONS,
				default: 'completed',
				description: 'Only scans in this status',
			},
			templateLocator({
				required: false,
				description: 'Only scans made with this template',
			}),
		],
	},
	optionsCollection(outputOption),
];

const displayOptions = { show: { resource: ['scan'], operation: ['getAll'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/**
 * Scans move on from `uploaded` and `processing` (statuses only move forward), so a listing
 * filtered by one of them loses records while it is read, and a loss above a page boundary
 * moves a record across it unseen. The same listing without the status filter only gains
 * records (a scan never changes template and is never deleted): it closes those gaps, with the
 * status checked here. A final status only gains scans (no filter is needed then); a status
 * the API does not list (from an expression) could do anything, so it is read the careful way.
 */
function changingFilter(qs: IDataObject): ChangingFilter | undefined {
	const status = qs.status;
	if (typeof status !== 'string' || FINAL_STATUSES.has(status)) return undefined;
	const stableQs = { ...qs };
	delete stableQs.status;
	return { stableQs, matches: (scan) => scan.status === status };
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? undefined
		: positiveId(this, this.getNodeParameter('limit', itemIndex, 50), itemIndex, 'Limit');
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const shape = scanShape(this, options, itemIndex);
	if (runsAsTool(this.getNode()) && (limit === undefined || limit > 50))
		throw refusal(
			this,
			`the field "Limit" must be at most 50 for an AI model, got ${limit ?? '"Return All"'}`,
			'Ask for fewer scans, or narrow the list by status or template. No request was sent.',
		);

	const qs: IDataObject = {};
	if (typeof filters.status === 'string' && filters.status !== '') qs.status = filters.status;
	const template = filters.templateId;
	const templateValue =
		typeof template === 'object' && template !== null ? (template as IDataObject).value : template;
	if (
		templateValue !== undefined &&
		templateValue !== null &&
		String(templateValue).trim() !== ''
	) {
		qs.template_id = positiveId(this, templateValue, itemIndex, 'Filters → Template');
	}

	const scans = await readPages.call(this, '/scans', qs, {
		limit,
		itemIndex,
		changing: changingFilter(qs),
	});
	return toItems(scans.flatMap(shape), itemIndex);
}
