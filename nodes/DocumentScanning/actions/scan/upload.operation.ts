import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { SERVICE_HOURLY_LIMIT } from '../../upload/budget/window';
import type { UploadOutcome } from '../../upload/session';
import { UploadSession } from '../../upload/session';
import type { Deferred, ExecutionScope } from '../../execution/scope';
import { isDeferred } from '../../execution/scope';
import { toItems } from '../../execution/items';
import { withOriginalName } from '../../../shared/scans/fileName';
import { handOff } from '../../waiting/handOff';
import { scanShape } from '../../execution/toolAnswer';
import {
	optionsCollection,
	outputOption,
	templateLocator,
	waitOptions,
	shownFor,
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
					description:
						'Fail the item: the service already has this file for this template (no credit is used)',
				},
				{
					name: 'Return Existing Scan',
					value: 'returnExisting',
					description:
						'Output the scan made earlier from the same file and template instead, proven by the content fingerprint in its stored name; a scan that only has the same name is never output. No credit is used.',
				},
			],
			default: 'error',
			description:
				'What to do when the service says this file was already uploaded with this template',
		},
		{
			displayName: 'File Name at the Service',
			name: 'storedFileName',
			type: 'options',
			options: [
				{
					name: 'Add Content Fingerprint',
					value: 'withFingerprint',
					description:
						'Invoice.pdf is stored as Invoice.ds-1a2b3c4d5e6f.pdf (the start of the file\'s SHA-256). The scan can then always be proven to hold this file: re-runs with "Return Existing Scan", an upload whose answer was lost, and the check before a batch find it.',
				},
				{
					name: 'Keep Exact File Name',
					value: 'asIs',
					description:
						'Invoice.pdf is stored as Invoice.pdf. Gives up proof: another document may have the same name, so the node cannot tell later which scan holds this file. "Return Existing Scan" does not work for it, an upload whose answer was lost ends in an error naming the scans that may be it, and a re-run counts it as a new upload.',
				},
			],
			default: 'withFingerprint',
			description:
				'The name the service stores with the scan. Node version 1 (workflows saved before this option) keeps the exact name unless "If Already Uploaded" is "Return Existing Scan"; "Return Existing Scan" always adds the fingerprint.',
		},
		{
			displayName: 'Hourly Upload Limit',
			name: 'hourlyLimit',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: SERVICE_HOURLY_LIMIT },
			default: SERVICE_HOURLY_LIMIT,
			description:
				'Uploads per rolling hour this node may fill, counting every upload of the account (other clients too): 1 to 200, the service\'s limit (a larger value counts as 200). A lower value leaves room for other clients. Before the first upload the node checks this and the credit: a batch that does not fit fails before any upload, or with Continue On Fail the documents that fit go and the others get a "not uploaded" item with "retryAfter".',
		},
		{
			...outputOption,
			displayOptions: { show: { '/waitForCompletion': [true] } },
		},
		...waitOptions,
	),
];

export const description = shownFor('scan', 'upload', properties);

/** Each upload waits for the execution's pace itself (upload/send.ts). */
export const pacesOwnRequests = true;

/** The execution's uploads, made before the first item is looked at. */
export function createState(this: IExecuteFunctions): UploadSession {
	return new UploadSession();
}

/**
 * "Hourly Upload Limit": a whole number from 1; above the service's 200 it counts as 200 (node
 * version 1 runs a decimal as its whole part, as it did). The value of the first item applies to
 * the batch.
 */
function hourlyLimitOf(ctx: IExecuteFunctions, itemIndex: number): number {
	const raw = (ctx.getNodeParameter('options', itemIndex, {}) as IDataObject).hourlyLimit;
	if (raw === undefined || raw === null || raw === '') return SERVICE_HOURLY_LIMIT;
	const value = ctx.getNode().typeVersion < 1.1 ? Math.floor(Number(raw)) : Number(raw);
	if (!Number.isInteger(value) || value < 1) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Item ${itemIndex}: the option "Hourly Upload Limit" must be a whole number from 1 to ${SERVICE_HOURLY_LIMIT}, got "${String(raw)}"`,
			{
				itemIndex,
				description:
					'It is the number of uploads per rolling hour the node may fill; the service allows 200. Nothing was uploaded and no credit was used.',
			},
		);
	}
	return Math.min(value, SERVICE_HOURLY_LIMIT);
}

/**
 * Local checks of one item before any item is uploaded: the template ID, the options, and the
 * file (present, non-empty, type, 20 MB; its SHA-256 when needed before sending).
 */
export async function validate(
	this: IExecuteFunctions,
	itemIndex: number,
	scope: ExecutionScope<UploadSession>,
): Promise<void> {
	hourlyLimitOf(this, itemIndex);
	// The settings the item reads after its upload, read now: none fails after a credit is spent.
	try {
		if (this.getNodeParameter('waitForCompletion', itemIndex, false))
			scanShape(this, this.getNodeParameter('options', itemIndex, {}) as IDataObject, itemIndex);
	} catch (error) {
		throw new NodeOperationError(
			this.getNode(),
			`Item ${itemIndex}: the setting "Wait for Completion" or its options could not be read: ${(error as Error).message}`,
			{ itemIndex, description: 'Nothing was uploaded for this item and no credit was used.' },
		);
	}
	// The batch's limit is item 0's: when it is not valid, no item can go.
	if (itemIndex > 0) {
		try {
			hourlyLimitOf(this, 0);
		} catch (error) {
			throw new NodeOperationError(
				this.getNode(),
				`Item ${itemIndex}: not uploaded: the option "Hourly Upload Limit" of item 0, which applies to the batch, is not valid`,
				{
					itemIndex,
					description: `${(error as Error).message}. Nothing was uploaded and no credit was used.`,
				},
			);
		}
	}
	await scope.state.prepare(this, itemIndex);
}

/** Before the first upload: the batch's repeats, the credit and the hourly uploads left. */
export async function beforeRequests(
	this: IExecuteFunctions,
	ready: number[],
	scope: ExecutionScope<UploadSession>,
): Promise<Map<number, Error>> {
	if (ready.length === 0) return new Map();
	return await scope.state.begin(this, ready, hourlyLimitOf(this, 0));
}

/** The node stops: its error names every scan the execution created. */
export async function onStop(
	this: IExecuteFunctions,
	error: unknown,
	scope: ExecutionScope<UploadSession>,
): Promise<unknown> {
	return await scope.state.stopError(this, error);
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	scope: ExecutionScope<UploadSession>,
): Promise<INodeExecutionData[] | Deferred> {
	const session = scope.state;
	// A repeat of an earlier item's file waits for that item, holding no request slot.
	if (session.isRepeat(itemIndex)) {
		const later = session.repeat(this, itemIndex).then(async (outcome) => {
			const output = outputOf(this, scope, itemIndex, outcome);
			return isDeferred(output) ? await output.later : output;
		});
		return { later };
	}
	return outputOf(this, scope, itemIndex, await session.upload(this, itemIndex, scope.pace));
}

/** The item's output: the scan as it is, or, with "Wait for Completion", once it is final. */
function outputOf(
	ctx: IExecuteFunctions,
	scope: ExecutionScope<UploadSession>,
	itemIndex: number,
	{ scan }: UploadOutcome,
): INodeExecutionData[] | Deferred {
	if (!ctx.getNodeParameter('waitForCompletion', itemIndex, false))
		return toItems([withOriginalName(scan)], itemIndex);
	return handOff(ctx, scope, {
		scan,
		scanId: Number(scan.id),
		itemIndex,
		options: ctx.getNodeParameter('options', itemIndex, {}) as IDataObject,
		templateId: Number(scan.template_id) || undefined,
	});
}
