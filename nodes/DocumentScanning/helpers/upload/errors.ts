import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** What the node knew when it had to look for the file's scan. */
export type SearchReason = 'recovery' | 'existing';

export interface FileRef {
	itemIndex: number;
	fileName: string;
	templateId: number;
}

function idList(scans: IDataObject[]): string {
	return scans.map((scan) => String(scan.id)).join(', ');
}

const CONTEXT: Record<SearchReason, string> = {
	recovery:
		'The answer to the upload was lost, and when the node sent the file again the service said it already has it, so one of these scans was created from it. No second credit was used.',
	existing: 'The service said this file was already uploaded with this template, so no credit was used.',
};

/** Several scans could be the file's: the node does not guess. */
export function ambiguousScanError(ctx: IExecuteFunctions, file: FileRef, scans: IDataObject[], reason: SearchReason) {
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${file.itemIndex}: ${scans.length} scans of template ${file.templateId} could be the scan of "${file.fileName}" (scan IDs ${idList(scans)})`,
		{
			itemIndex: file.itemIndex,
			description: `${CONTEXT[reason]} The service does not say which scan holds a file, and these scans all have its file name, so the node does not pick one: another document with the same name may be among them. Open the scans with Scan → Get to see which one is this document. Unique file names avoid this.`,
		},
	);
}

/** "Return Existing Scan" found no scan of that name. */
export function existingScanNotFoundError(ctx: IExecuteFunctions, file: FileRef) {
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${file.itemIndex}: the service says "${file.fileName}" was already uploaded with template ${file.templateId}, but no scan of that template has this file name`,
		{
			itemIndex: file.itemIndex,
			description: `${CONTEXT.existing} The earlier upload probably used another file name, or its scan belongs to another item of this execution. Find it with Scan → Get Many (template ${file.templateId}), or set "If Already Uploaded" to "Error".`,
		},
	);
}

/** Neither attempt's outcome is known: tell the user what may exist before they upload again. */
export function unknownOutcomeError(
	ctx: IExecuteFunctions,
	file: FileRef,
	cause: unknown,
	candidates: IDataObject[] | undefined,
) {
	const text = cause instanceof Error ? cause.message : String(cause);
	const found =
		candidates === undefined
			? `Check with Scan → Get Many (template ${file.templateId}) whether a scan named "${file.fileName}" was created`
			: candidates.length === 0
				? `No scan named "${file.fileName}" was created for template ${file.templateId} since the upload was sent, as far as the listing showed; check again with Scan → Get Many`
				: `Scans of template ${file.templateId} named "${file.fileName}" created since the upload was sent: ${idList(candidates)}. Check whether one of them is this document`;
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${file.itemIndex}: the upload of "${file.fileName}" may or may not have been accepted: ${text}`,
		{
			itemIndex: file.itemIndex,
			description: `The service did not answer the upload, or refused it after an earlier attempt got no answer. ${found} before uploading again, so the document is not charged twice.`,
		},
	);
}
