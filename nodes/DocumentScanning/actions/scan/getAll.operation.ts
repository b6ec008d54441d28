import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { positiveId } from '../params';
import { toItems } from '../../execution/items';
import { type ExecutionScope, MAX_CONCURRENCY } from '../../execution/scope';
import { refusal, runsAsTool } from '../../execution/tool';
import { scanShape } from '../../execution/toolAnswer';
import { wholeScan } from '../../waiting/requests';
import { mapWithConcurrency } from '../../../shared/concurrency';
import { readPages } from '../../../shared/transport/paging';
import {
	optionsCollection,
	limitProperty,
	outputOption,
	returnAllProperty,
	templateLocator,
	shownFor,
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
			templateLocator({ required: false, description: 'Only scans made with this template' }),
		],
	},
	optionsCollection(outputOption),
];

export const description = shownFor('scan', 'getAll', properties);

/** The item holds no place of the execution's pace: each scan it reads by ID takes one. */
export const pacesOwnRequests = true;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	scope: ExecutionScope,
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
	if (String(templateValue ?? '').trim() !== '')
		qs.template_id = positiveId(this, templateValue, itemIndex, 'Filters → Template');

	// Any status filter loses scans while it is read (they move on, or are processed again).
	const listed = await readPages.call(this, '/scans', qs, {
		limit,
		itemIndex,
		changes: qs.status === undefined ? 'grows' : 'any',
	});
	// A finished scan is output as GET /scans/{id} gives it: one read per listed record that lacks
	// a field (at most the Limit), at the execution's pace. Unfinished ones have no data yet.
	const scans = await mapWithConcurrency(
		listed.length,
		MAX_CONCURRENCY,
		async (i) => await wholeScan.call(this, listed[i], itemIndex, scope.pace),
	);
	// A scan read by ID in another status than listed left the filter's status during the read:
	// it may be left out, never output in another status than the filter's.
	const kept = scans.filter((s, i) => qs.status === undefined || s.status === listed[i].status);
	return toItems(kept.flatMap(shape), itemIndex);
}
