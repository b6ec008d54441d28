import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ScanOutputMode } from '../../helpers/scanOutput';
import { shapeScan } from '../../helpers/scanOutput';
import { checkUploadFile, readUploadFile } from '../../helpers/binary';
import { sendUpload } from '../../helpers/upload';
import { positiveId } from '../../helpers/params';
import type { Deferred, ExecutionScope } from '../../helpers/utils';
import { toItems } from '../../helpers/utils';
import { failedScanError, FINAL_STATUSES, waitSettings } from '../../helpers/wait';
import { optionsCollection, outputOption, templateLocator, waitOptions } from '../common.descriptions';

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
			description: 'What to do when the service says this file was already uploaded with this template',
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
	return positiveId(ctx, ctx.getNodeParameter('templateId', itemIndex, '', { extractValue: true }), itemIndex, 'Template');
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

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	scope: ExecutionScope,
): Promise<INodeExecutionData[] | Deferred> {
	const templateId = templateOf(this, itemIndex);
	const wait = this.getNodeParameter('waitForCompletion', itemIndex, false) as boolean;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;

	const file = await readUploadFile.call(this, itemIndex, binaryPropertyOf(this, itemIndex));
	const scan = await sendUpload.call(this, {
		templateId,
		file,
		itemIndex,
		returnExisting: options.onDuplicate === 'returnExisting',
		scope,
	});
	if (!wait) return toItems([scan], itemIndex);

	const scanId = Number(scan.id);
	if (FINAL_STATUSES.has(String(scan.status))) {
		if (scan.status === 'failed') throw failedScanError(this, scanId, scan, itemIndex);
		return toItems(shapeScan(scan, outputMode(options)), itemIndex);
	}
	const later = scope.poller.wait({
		scanId,
		itemIndex,
		settings: waitSettings(options),
		templateId: Number(scan.template_id ?? templateId),
		initial: scan,
	});
	return { later: later.then((final) => toItems(shapeScan(final, outputMode(options)), itemIndex)) };
}

function outputMode(options: IDataObject): ScanOutputMode {
	return (options.output as ScanOutputMode) ?? 'raw';
}
