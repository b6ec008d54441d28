import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { httpStatusOf } from '../../shared/transport';

/** What the node knew when it had to look for the file's scan. */
export type SearchReason = 'recovery' | 'existing' | 'fingerprint';

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
	existing:
		'The service said this file was already uploaded with this template, so no credit was used.',
	fingerprint:
		"The service said this file was already uploaded with this template, so no credit was used. Several scans carry this file's content fingerprint in their names, which happens only when names were set by hand.",
};

/** Several scans could be the file's: the node does not guess. */
export function ambiguousScanError(
	ctx: IExecuteFunctions,
	file: FileRef,
	scans: IDataObject[],
	reason: SearchReason,
) {
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${file.itemIndex}: ${scans.length} scans of template ${file.templateId} could be the scan of "${file.fileName}" (scan IDs ${idList(scans)})`,
		{
			itemIndex: file.itemIndex,
			description: `${CONTEXT[reason]} The service does not say which scan holds a file, and these scans all have its file name, so the node does not pick one: another document with the same name may be among them. Open the scans with Scan → Get to see which one is this document. Unique file names avoid this.`,
		},
	);
}

/**
 * "Return Existing Scan" found no scan that provably holds this file (none carries its
 * content fingerprint). Scans of the same name without a fingerprint are named, never output.
 */
export function existingScanNotProvenError(
	ctx: IExecuteFunctions,
	file: FileRef,
	fingerprint: string,
	sameName: IDataObject[],
) {
	const how = `Open them with Scan → Get to see whether one is this document, or look for the file's scan under another name with Scan → Get Many (template ${file.templateId}); to upload regardless, change the file's bytes or use another template.`;
	if (sameName.length > 0) {
		return new NodeOperationError(
			ctx.getNode(),
			`Item ${file.itemIndex}: the service says "${file.fileName}" was already uploaded with template ${file.templateId}; ${sameName.length} scan${sameName.length === 1 ? '' : 's'} of that template ha${sameName.length === 1 ? 's' : 've'} this name but no content fingerprint (scan IDs ${idList(sameName)}), so none is output`,
			{
				itemIndex: file.itemIndex,
				description: `${CONTEXT.existing} "If Already Uploaded" = "Return Existing Scan" outputs a scan only when its file name carries this file's content fingerprint (".ds-${fingerprint}"), which the node adds to the names it uploads with this option. Scans uploaded without it (with "Error", or before the node did this) carry none, and a file name alone does not prove which document a scan holds: another document may have had the same name. ${how}`,
			},
		);
	}
	return new NodeOperationError(
		ctx.getNode(),
		`Item ${file.itemIndex}: the service says "${file.fileName}" was already uploaded with template ${file.templateId}, but no scan of that template carries this file's fingerprint (".ds-${fingerprint}") or its name`,
		{
			itemIndex: file.itemIndex,
			description: `${CONTEXT.existing} The earlier upload was made under another file name and without "Return Existing Scan" (which adds the fingerprint to the name). ${how}`,
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
	const error = new NodeOperationError(
		ctx.getNode(),
		`Item ${file.itemIndex}: the upload of "${file.fileName}" may or may not have been accepted: ${text}`,
		{
			itemIndex: file.itemIndex,
			description: `The service did not answer the upload, or refused it after an earlier attempt got no answer. ${found} before uploading again, so the document is not charged twice.`,
		},
	);
	// A re-send refused for a limit: the batch's upload gate must close as for any other 429/402.
	const status = httpStatusOf(cause);
	if (status === 429 || status === 402) error.context.limitStatus = status;
	return error;
}

/** The limit (429 or 402) that refused the re-send behind an unknown-outcome error, if any. */
export function limitStatusOf(error: unknown): number | undefined {
	if (!(error instanceof NodeOperationError)) return undefined;
	const status = error.context.limitStatus;
	return status === 429 || status === 402 ? status : undefined;
}
