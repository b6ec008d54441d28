import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import type { ScanOutputMode } from '../../helpers/scanOutput';
import { shapeScan } from '../../helpers/scanOutput';
import type { UploadFile } from '../../helpers/binary';
import { readUploadFile } from '../../helpers/binary';
import { findScanByFileName } from '../../helpers/lookup';
import { positiveId } from '../../helpers/params';
import type { Deferred, ExecutionScope } from '../../helpers/utils';
import { toItems } from '../../helpers/utils';
import { failedScanError, FINAL_STATUSES, waitSettings } from '../../helpers/wait';
import { apiRequest, httpStatusOf, isOutcomeUnknown } from '../../transport';
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
						'Output the scan made earlier from the same file and template (found by file name) instead. No credit is used.',
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

/** Time window (ms) around the upload in which a found scan counts as the upload's own. */
const RECOVERY_SLACK_MS = 2 * 60 * 1000;

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
	await readUploadFile.call(this, itemIndex, binaryPropertyOf(this, itemIndex));
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
	const scan = await uploadOnce.call(this, {
		templateId,
		file,
		itemIndex,
		returnExisting: options.onDuplicate === 'returnExisting',
		claimed: scope.claimedScanIds,
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

interface UploadRequest {
	templateId: number;
	file: UploadFile;
	itemIndex: number;
	returnExisting: boolean;
	/** Scans already output by uploads of this execution, never handed to another item. */
	claimed: Set<number>;
}

/**
 * POST /scans exactly once in effect:
 * - 409 → the existing scan when "Return Existing Scan" is chosen, else the 409 error;
 * - lost answer / timeout / 5xx (outcome unknown) → look the scan up first; only when it is
 *   not there, upload once more; a 409 on that retry means the first attempt did create it,
 *   so the existing scan is looked up and returned.
 * The transport never repeats a POST by itself.
 */
async function uploadOnce(this: IExecuteFunctions, request: UploadRequest): Promise<IDataObject> {
	const { templateId, file, itemIndex } = request;
	const mine = request.claimed;
	const startedAt = Date.now();
	const post = async () => {
		const form = new FormData();
		form.append('template_id', String(templateId));
		form.append('file', file.blob, file.fileName);
		const created = await apiRequest.call(this, {
			method: 'POST',
			path: '/scans',
			body: form,
			itemIndex,
			retry: false,
			timeout: 120_000,
		});
		if (created.id !== undefined) mine.add(Number(created.id));
		return created;
	};
	const lookup = async (recentOnly: boolean, excludeClaimed: boolean) => {
		const found = await findScanByFileName.call(this, {
			templateId,
			fileName: file.fileName,
			itemIndex,
			createdAfter: recentOnly ? startedAt : undefined,
			slackMs: RECOVERY_SLACK_MS,
			exclude: excludeClaimed ? mine : undefined,
		});
		if (found?.id !== undefined) mine.add(Number(found.id));
		return found;
	};

	let firstError: unknown;
	try {
		return await post();
	} catch (error) {
		firstError = error;
	}

	if (httpStatusOf(firstError) === 409) {
		if (!request.returnExisting) throw firstError;
		const existing = await lookup(false, false);
		if (existing) return existing;
		throw withDescription(
			firstError,
			`The service says this file was already uploaded with this template, but no scan named "${file.fileName}" was found for template ${templateId} (it may have been uploaded under another file name). No credit was used.`,
		);
	}
	if (!isOutcomeUnknown(firstError)) throw firstError;

	// The upload may or may not have been accepted: look before uploading again.
	let recovered: IDataObject | undefined;
	try {
		recovered = await lookup(true, true);
	} catch {
		throw unknownOutcome(this, firstError, request);
	}
	if (recovered) return recovered;

	let retryError: unknown;
	try {
		return await post();
	} catch (error) {
		retryError = error;
	}
	if (httpStatusOf(retryError) === 409) {
		// The first attempt did reach the service after all: this is our own scan.
		const existing = await lookup(false, true);
		if (existing) return existing;
		throw retryError;
	}
	if (isOutcomeUnknown(retryError)) {
		let found: IDataObject | undefined;
		try {
			found = await lookup(true, true);
		} catch {
			found = undefined;
		}
		if (found) return found;
		throw unknownOutcome(this, retryError, request);
	}
	throw retryError;
}

function withDescription(error: unknown, description: string): unknown {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.description = description;
	}
	return error;
}

function unknownOutcome(ctx: IExecuteFunctions, error: unknown, request: UploadRequest): unknown {
	const text = error instanceof Error ? error.message : String(error);
	const wrapped = new NodeOperationError(
		ctx.getNode(),
		`Item ${request.itemIndex}: the upload of "${request.file.fileName}" may or may not have been accepted: ${text}`,
		{
			itemIndex: request.itemIndex,
			description: `The connection failed before the service answered, and the scan could not be found afterwards. Before uploading again, check with Scan → Get Many (filter: template ${request.templateId}) whether a scan named "${request.file.fileName}" exists, so the document is not charged twice.`,
		},
	);
	return wrapped;
}
