import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../execution/scope';
import {
	DEFAULT_MAX_POLL_INTERVAL_S,
	DEFAULT_POLL_INTERVAL_S,
	DEFAULT_WAIT_TIMEOUT_S,
	MAX_POLL_INTERVAL_S,
	MIN_POLL_INTERVAL_S,
} from '../waiting/pollSettings';

/** An operation's parameters, shown only when its resource and operation are chosen. */
export function shownFor(
	resource: string,
	operation: string,
	properties: INodeProperties[],
): INodeProperties[] {
	return updateDisplayOptions(
		{ show: { resource: [resource], operation: [operation] } },
		properties,
	);
}

/** Options shared by several operations; each operation puts them in its own "Options" collection. */

export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
	default: DEFAULT_CONCURRENCY,
	description:
		'The most requests this node has at the service at the same time (node version 1: 5 when the option is not set). It starts with 5 and grows toward this number while the service answers quickly; a 429, a server error, a lost connection or a slow answer halves it (as TCP does). Waiting for scans does not hold these places: all scans of one execution are waited for together. The output keeps the order of the input items.',
};

/** The "Options" collection of an operation: Concurrency first, then the operation's own. */
export function optionsCollection(...options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [concurrencyOption, ...options],
	};
}

export const outputOption: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	options: [
		{ name: 'Raw Scan', value: 'raw', description: 'The scan exactly as the API returns it' },
		{
			name: 'Extracted Fields',
			value: 'fields',
			description:
				'Only the extracted fields, with the manually reviewed values merged over them field by field, and scan_id, status, template_id, filename, confidence, reviewed and reviewedFields beside them',
		},
		{
			name: 'One Item per Table Row',
			value: 'rows',
			description:
				'One item per row of every table in the document (e.g. line items), with the document fields under "document". A scan without table rows gives one item with its fields.',
		},
	],
	default: 'raw',
	description: 'How each scan is turned into output items',
};

/** Settings of "Wait for Completion"; shown only when it is switched on. */
export const waitOptions: INodeProperties[] = [
	{
		displayName: 'First Poll Interval (Seconds)',
		name: 'pollInterval',
		type: 'number',
		typeOptions: {
			minValue: MIN_POLL_INTERVAL_S,
			maxValue: MAX_POLL_INTERVAL_S,
			numberPrecision: 2,
		},
		default: DEFAULT_POLL_INTERVAL_S,
		description:
			'How long after the upload (or the first read) the scan is read again the first time, and the shortest gap between two reads. Later gaps grow with the time waited (15% of it), up to the max poll interval. All scans of one execution are followed together; once one of a template has finished, the others are also read when they are expected to finish. Kept between 0.2 and 3600 seconds.',
		displayOptions: { show: { '/waitForCompletion': [true] } },
	},
	{
		displayName: 'Max Poll Interval (Seconds)',
		name: 'maxPollInterval',
		type: 'number',
		typeOptions: {
			minValue: MIN_POLL_INTERVAL_S,
			maxValue: MAX_POLL_INTERVAL_S,
			numberPrecision: 2,
		},
		default: DEFAULT_MAX_POLL_INTERVAL_S,
		description: 'Longest gap between two reads of the scan. Kept between 0.2 and 3600 seconds.',
		displayOptions: { show: { '/waitForCompletion': [true] } },
	},
	{
		displayName: 'Wait Timeout (Seconds)',
		name: 'waitTimeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_WAIT_TIMEOUT_S,
		description:
			'How long to wait for the scan to finish before the item fails. The scan keeps processing on the service and can be read later with Scan → Get.',
		displayOptions: { show: { '/waitForCompletion': [true] } },
	},
];

export const returnAllProperty: INodeProperties = {
	displayName: 'Return All',
	name: 'returnAll',
	type: 'boolean',
	default: false,
	description: 'Whether to return all results or only up to a given limit',
};

export const limitProperty: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 50,
	description: 'Max number of results to return',
	displayOptions: { show: { returnAll: [false] } },
};

/** The `templateId` resource locator: pick from the account's templates, or enter an ID. */
export function templateLocator(overrides: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Template',
		name: 'templateId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'Template that defines the fields to extract',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a template...',
				typeOptions: { searchListMethod: 'searchTemplates', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 12',
				validation: [
					{
						type: 'regex',
						properties: {
							regex: '^\\s*[1-9][0-9]*\\s*$',
							errorMessage: 'Enter a template ID: digits only, e.g. 12',
						},
					},
				],
			},
		],
		...overrides,
	} as INodeProperties;
}
