import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkUploadFile, readUploadFile } from '../../upload/binary';
import { checkBudget, SERVICE_HOURLY_LIMIT } from '../../upload/budget';
import { sendUpload } from '../../upload';
import { positiveId } from '../params';
import type { Deferred, ExecutionScope } from '../../execution/scope';
import { toItems } from '../../execution/items';
import { handOff } from '../../waiting/handOff';
import {
	optionsCollection,
	outputOption,
	templateLocator,
	waitOptions,
} from '../common.descriptions';

const properties: INodeProperties[] = [
	templateLocator(),
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field containing the file to be uploaded',
		description: 'PDF, JPG, JPEG or PNG file, at most 20 MB. Each upload uses one scan credit.',
	},
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: false,
		description:
			'Whether to wait until the scan is processed and output the full scan; otherwise the scan is output as created (status "uploaded")',
	},
	optionsCollection(
		{
			displayName: 'If Already Uploaded',
			name: 'onDuplicate',
			type: 'options',
			options: [
				{
					name: 'Error',
					value: 'error',
					description: 'Fail the item with the service\'s "already uploaded" error (HTTP 409)',
				},
				{
					name: 'Return Existing Scan',
					value: 'returnExisting',
					description:
						'Output the scan made earlier from the same file and template instead. The file is uploaded with a content fingerprint in its name (Invoice.ds-1a2b3c4d5e6f.pdf), which proves which scan holds it; a scan that only has the same name is never output. No credit is used.',
				},
			],
			default: 'error',
			description:
				'What to do when the service says this file was already uploaded with this template',
		},
		{
			displayName: 'Hourly Upload Limit',
			name: 'hourlyLimit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: SERVICE_HOURLY_LIMIT,
			description:
				'Uploads per rolling hour this node may fill, counting every upload of the account (other clients too). The service allows 200; a lower value leaves room for other clients. Before the first upload the node checks this and the credit: a batch that does not fit fails before any upload, or with Continue On Fail the documents that fit go and the others get a "not uploaded" item with "retryAfter".',
		},
		{
			...outputOption,
			displayOptions: { show: { '/waitForCompletion': [true] } },
		},
		...waitOptions,
	),
];

const displayOptions = { show: { resource: ['scan'], operation: ['upload'] } };

export const description = updateDisplayOptions(displayOptions, properties);

function templateOf(ctx: IExecuteFunctions, itemIndex: number): number {
	return positiveId(
		ctx,
		ctx.getNodeParameter('templateId', itemIndex, '', { extractValue: true }),
		itemIndex,
		'Template',
	);
}

function binaryPropertyOf(ctx: IExecuteFunctions, itemIndex: number): string {
	return ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string;
}

/**
 * Local checks of one item before any item is uploaded: the template ID, and the file
 * (present, non-empty, type, 20 MB). The bytes read here are not kept: only the files in
 * flight are held in memory, and `execute` reads each one again when its turn comes.
 */
export async function validate(this: IExecuteFunctions, itemIndex: number): Promise<void> {
	templateOf(this, itemIndex);
	await checkUploadFile.call(this, itemIndex, binaryPropertyOf(this, itemIndex));
}

/** Before the first upload: the credit and hourly uploads left decide which items go. */
export async function beforeRequests(
	this: IExecuteFunctions,
	ready: number[],
	scope: ExecutionScope,
): Promise<Map<number, Error>> {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const hourlyLimit = Math.max(
		1,
		Math.floor(Number(options.hourlyLimit ?? SERVICE_HOURLY_LIMIT)) || SERVICE_HOURLY_LIMIT,
	);
	scope.uploadGate = await checkBudget.call(this, ready, hourlyLimit);
	return new Map();
}

/** A limit hit during the uploads: the node's error names the scans the execution got. */
export async function onStop(
	this: IExecuteFunctions,
	error: unknown,
	scope: ExecutionScope,
): Promise<unknown> {
	return (await scope.uploadGate?.stopError(this, error)) ?? error;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	scope: ExecutionScope,
): Promise<INodeExecutionData[] | Deferred> {
	const templateId = templateOf(this, itemIndex);
	const wait = this.getNodeParameter('waitForCompletion', itemIndex, false) as boolean;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;

	const gate = scope.uploadGate;
	await gate?.enter(this, itemIndex);
	let fileName: string | undefined;
	let scan: IDataObject;
	try {
		const file = await readUploadFile.call(this, itemIndex, binaryPropertyOf(this, itemIndex));
		fileName = file.fileName;
		scan = await sendUpload.call(this, {
			templateId,
			file,
			itemIndex,
			returnExisting: options.onDuplicate === 'returnExisting',
			scope,
		});
	} catch (error) {
		// Without a file name nothing was sent.
		gate?.settle(itemIndex, fileName ?? '', { error, sent: fileName !== undefined });
		throw (await gate?.onFailure(this, itemIndex, error)) ?? error;
	}
	gate?.settle(itemIndex, fileName ?? '', { scan });
	if (!wait) return toItems([scan], itemIndex);

	return handOff(this, scope, {
		scan,
		scanId: Number(scan.id),
		itemIndex,
		options,
		templateId: Number(scan.template_id ?? templateId),
	});
}
