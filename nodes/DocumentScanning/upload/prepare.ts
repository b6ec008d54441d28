import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { positiveId } from '../actions/params';
import type { UploadFile } from './binary';
import { checkUploadFile } from './binary';
import { fingerprintOf, withFingerprint } from './fingerprint';

export type OnDuplicate = 'error' | 'returnExisting';
export type StoredName = 'withFingerprint' | 'asIs';

/** The node version from which uploads carry the content fingerprint unless told otherwise. */
export const FINGERPRINT_BY_DEFAULT_FROM = 1.1;

/** One item's upload, checked locally and ready to send: nothing of its bytes is held. */
export interface PreparedUpload {
	itemIndex: number;
	templateId: number;
	file: UploadFile;
	onDuplicate: OnDuplicate;
	/** The name the service stores: with the content fingerprint, or the user's as it is. */
	sentName: string;
	/** The fingerprint in `sentName` (first 12 hex digits of the SHA-256); undefined without one. */
	fingerprint: string | undefined;
	/** `templateId:sha256`: the same bytes for the same template; undefined when not hashed. */
	fileKey: string | undefined;
}

/**
 * Whether the name at the service carries the content fingerprint: always with "Return Existing
 * Scan"; else "File Name at the Service", by default from node version 1.1 on.
 */
export function fingerprinted(
	onDuplicate: OnDuplicate,
	storedName: StoredName | undefined,
	nodeVersion: number,
): boolean {
	if (onDuplicate === 'returnExisting') return true;
	if (storedName === undefined) return nodeVersion >= FINGERPRINT_BY_DEFAULT_FROM;
	return storedName === 'withFingerprint';
}

/** The options whose values an expression may set to anything: only their own are taken. */
const CHOICES: Array<[string, string, string[]]> = [
	['onDuplicate', 'If Already Uploaded', ['error', 'returnExisting']],
	['storedFileName', 'File Name at the Service', ['withFingerprint', 'asIs']],
];

/**
 * Reads one item's upload settings and checks its file, before any item is uploaded. The file is
 * read whole only when its SHA-256 is needed before sending: for the fingerprint, or in a batch.
 */
export async function prepareUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	batchSize: number,
): Promise<PreparedUpload> {
	const templateId = positiveId(
		ctx,
		ctx.getNodeParameter('templateId', itemIndex, '', { extractValue: true }),
		itemIndex,
		'Template',
	);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	for (const [name, label, values] of CHOICES) {
		const value = options[name];
		if (value === undefined || values.includes(value as string)) continue;
		const allowed = values.map((v) => `"${v}"`).join(' or ');
		throw new NodeOperationError(
			ctx.getNode(),
			`Item ${itemIndex}: the option "${label}" must be ${allowed}, got "${String(value)}"`,
			{ itemIndex, description: 'Nothing was uploaded and no credit was used.' },
		);
	}
	const onDuplicate: OnDuplicate =
		options.onDuplicate === 'returnExisting' ? 'returnExisting' : 'error';
	const storedName = options.storedFileName as StoredName | undefined;
	if (storedName === 'asIs' && onDuplicate === 'returnExisting') {
		throw new NodeOperationError(
			ctx.getNode(),
			`Item ${itemIndex}: "File Name at the Service" = "Keep Exact File Name" cannot be combined with "If Already Uploaded" = "Return Existing Scan"`,
			{
				itemIndex,
				description:
					'"Return Existing Scan" finds the scan that holds a file by the content fingerprint in its name, so it needs the fingerprint. Set "File Name at the Service" to "Add Content Fingerprint", or "If Already Uploaded" to "Error". Nothing was uploaded and no credit was used.',
			},
		);
	}
	const withProof = fingerprinted(onDuplicate, storedName, ctx.getNode().typeVersion);
	const property = ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string;
	const file = await checkUploadFile.call(ctx, itemIndex, property, {
		hash: withProof || batchSize > 1,
	});
	const { sha256 } = file;
	return {
		itemIndex,
		templateId,
		file,
		onDuplicate,
		sentName: withProof && sha256 ? withFingerprint(file.fileName, sha256) : file.fileName,
		fingerprint: withProof && sha256 ? fingerprintOf(sha256) : undefined,
		fileKey: sha256 ? `${templateId}:${sha256}` : undefined,
	};
}
