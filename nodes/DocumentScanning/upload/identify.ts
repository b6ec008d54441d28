/**
 * Which scan holds an item's file, when the answers alone do not say: after a 409, and after
 * answers that were lost. Only the content fingerprint in a stored name proves it (the node
 * chose that name from the file's bytes); a file name alone never does, because another
 * document may have the same name. Without proof the item gets a clear error naming what was
 * found, never a scan.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { httpStatusOf } from '../../shared/transport';
import {
	AlreadyUploadedError,
	AmbiguousScanError,
	idList,
	NotUploadedError,
	NotProvenError,
	OutcomeUnknownError,
	plural,
} from './errors';
import { sameFileName } from './fileNames';
import { fingerprintIn } from './fingerprint';
import type { PreparedUpload } from './prepare';
import type { SendResult } from './send';
import type { ListingRequest } from './scanPages';
import { holdsFiles } from './scanPages';
import type { TemplateScans } from './templateScans';

/** An upload's scan, and how the node knows it is the file's. */
export type FoundScan =
	/** The answer was lost; this scan carries the file's fingerprint and was made since the first attempt. */
	| { kind: 'recovered'; scan: IDataObject }
	/** "Return Existing Scan": the scan made earlier from these bytes (no credit). */
	| { kind: 'existing'; scan: IDataObject };

const requestOf = ({ templateId, itemIndex, file }: PreparedUpload): ListingRequest => ({
	templateId,
	itemIndex,
	fileName: file.fileName,
});

const ids = (scans: IDataObject[]) => scans.map((scan) => Number(scan.id));

/**
 * The scans made since local time `since` that may hold the file: its fingerprint, or else its
 * name; never one that other items of this execution got (`taken`), which holds their files.
 * When they cannot be read, the outcome of the attempt that failed with `cause` is unknown.
 */
async function madeSince(
	ctx: IExecuteFunctions,
	index: TemplateScans,
	upload: PreparedUpload,
	since: number,
	taken: ReadonlySet<number>,
	cause: unknown,
): Promise<IDataObject[]> {
	const recent = await index.readSince(ctx, since, requestOf(upload)).catch((error: unknown) => {
		throw lostError(ctx, upload, cause, undefined, error);
	});
	index.add(recent, true);
	return recent.filter(
		(scan) =>
			holdsFiles(scan, upload.templateId) &&
			!taken.has(Number(scan.id)) &&
			(upload.fingerprint !== undefined
				? fingerprintIn(scan.filename) === upload.fingerprint
				: sameFileName(scan.filename, upload.sentName)),
	);
}

/** Several scans carry one file's fingerprint: names set by hand; the node does not pick one. */
function ambiguous(ctx: IExecuteFunctions, upload: PreparedUpload, scans: IDataObject[]) {
	return new AmbiguousScanError(
		ctx.getNode(),
		`Item ${upload.itemIndex}: ${scans.length} scans of template ${upload.templateId} carry the content fingerprint of "${upload.file.fileName}" (scan IDs ${idList(ids(scans))})`,
		{
			itemIndex: upload.itemIndex,
			description: `No credit was used for this item. The node adds ".ds-${upload.fingerprint}" to the name of this file's uploads; several scans with it mean names were set by hand, so the node does not pick one. Open them with Scan → Get to see which one is this document.`,
		},
		ids(scans),
	);
}

/** The 409 of "If Already Uploaded" = "Error": names the scan when the node already knows it. */
export function alreadyUploadedError(
	ctx: IExecuteFunctions,
	upload: PreparedUpload,
	scan: IDataObject | undefined,
	note = '',
): AlreadyUploadedError {
	const where =
		scan === undefined
			? ''
			: ` as scan ${String(scan.id)} (its stored name carries this file's content fingerprint)`;
	const next =
		scan === undefined
			? 'To output the earlier scan instead, set "If Already Uploaded" to "Return Existing Scan": the node then finds it by the content fingerprint in its stored name, or, when the earlier upload was made without one (node version 1 by default, or "Keep Exact File Name"), fails naming the scans with this file name for you to open with Scan → Get.'
			: `To output that scan instead, set "If Already Uploaded" to "Return Existing Scan", or read it with Scan → Get (ID ${String(scan.id)}).`;
	return new AlreadyUploadedError(
		ctx.getNode(),
		`Item ${upload.itemIndex}: "${upload.file.fileName}" was already uploaded with template ${upload.templateId}${where}`,
		{
			itemIndex: upload.itemIndex,
			description: `${note}The service refuses the same file twice for one template, so no credit was used. ${next}`,
		},
		scan === undefined ? undefined : Number(scan.id),
	);
}

/**
 * After a 409. A lost earlier attempt may have made the scan: a scan with the file's
 * fingerprint made since that attempt is the file's scan (recovered). Otherwise the 409 is
 * about an earlier upload: "Return Existing Scan" looks for the scan with the fingerprint,
 * "Error" fails with the 409. Without a fingerprint nothing can be proven.
 */
export async function afterConflict(
	ctx: IExecuteFunctions,
	index: TemplateScans,
	upload: PreparedUpload,
	conflict: Extract<SendResult, { kind: 'conflict' }>,
	taken: ReadonlySet<number>,
): Promise<FoundScan> {
	let note = '';
	if (conflict.lostSince !== undefined) {
		// The lost attempt may have made the scan: unless the listing proves it did not, the
		// outcome is unknown, with the scans that may be it.
		const since = await madeSince(ctx, index, upload, conflict.lostSince, taken, conflict.error);
		if (upload.fingerprint !== undefined && since.length === 1)
			return { kind: 'recovered', scan: since[0] };
		if (since.length > 0) throw lostError(ctx, upload, conflict.error, ids(since));
		note = `The first attempt's answer was lost, but no scan ${upload.fingerprint === undefined ? 'with this file name' : "with this file's content fingerprint"} was made since it was sent: the service's copy is an earlier upload. `;
	}
	if (upload.fingerprint === undefined || upload.onDuplicate === 'error') {
		throw alreadyUploadedError(ctx, upload, index.onlyProven(upload.fingerprint), note);
	}
	const found = await index.find(ctx, upload.fingerprint, conflict.at, requestOf(upload));
	if (found.length === 1) return { kind: 'existing', scan: found[0] };
	if (found.length > 1) throw ambiguous(ctx, upload, found);
	throw notProvenError(ctx, upload, index.sameNameWithoutProof(upload.file.fileName));
}

/**
 * After answers that were all lost (or a re-send the service refused): a scan with the file's
 * fingerprint made since the first attempt is the file's scan; otherwise the outcome is unknown,
 * and the error names the scans that may hold the file.
 */
export async function afterLostAnswers(
	ctx: IExecuteFunctions,
	index: TemplateScans,
	upload: PreparedUpload,
	lost: Extract<SendResult, { kind: 'lost' }>,
	taken: ReadonlySet<number>,
): Promise<FoundScan> {
	const since = await madeSince(ctx, index, upload, lost.sentAt, taken, lost.failure);
	if (upload.fingerprint !== undefined && since.length === 1)
		return { kind: 'recovered', scan: since[0] };
	throw lostError(ctx, upload, lost.failure, ids(since));
}

/** Neither attempt's outcome is known: what may exist, and what to do before uploading again. */
function lostError(
	ctx: IExecuteFunctions,
	upload: PreparedUpload,
	cause: unknown,
	candidates: number[] | undefined,
	listingError?: unknown,
): OutcomeUnknownError {
	const status = httpStatusOf(cause);
	const said = cause instanceof Error ? cause.message : String(cause);
	const text =
		cause instanceof NotUploadedError
			? 'its answer was lost, and it was not sent again after the service refused an upload of this execution'
			: status === undefined
				? said
				: `a re-send was answered HTTP ${status} (${said.replace(/ \(item \d+\)$/, '')})`;
	const what =
		upload.fingerprint === undefined
			? `named "${upload.sentName}"`
			: `carrying its content fingerprint (".ds-${upload.fingerprint}")`;
	const found =
		candidates === undefined
			? `The scans of template ${upload.templateId} could not be read either (${listingError instanceof Error ? listingError.message : String(listingError)}).`
			: candidates.length === 0
				? `No scan of template ${upload.templateId} ${what} was listed since the upload was sent.`
				: `Scans of template ${upload.templateId} ${what} made since the upload was sent: ${idList(candidates)}.`;
	const next =
		upload.fingerprint === undefined
			? `Check with Scan → Get Many (template ${upload.templateId}) or Scan → Get whether one of them is this document before uploading it again, so it is not charged twice.`
			: 'Run it again with "If Already Uploaded" set to "Return Existing Scan": if a scan was made, it is output without a new credit; if not, the file is uploaded.';
	return new OutcomeUnknownError(
		ctx.getNode(),
		`Item ${upload.itemIndex}: the upload of "${upload.file.fileName}" may or may not have been accepted: ${text}`,
		{
			itemIndex: upload.itemIndex,
			description: `The service did not answer the upload, or refused it after an earlier attempt got no answer. ${found} ${next}`,
		},
		candidates,
		status === 429 || status === 402 ? status : undefined,
	);
}

/** "Return Existing Scan": the service has the file, and no scan carries its fingerprint. */
export function notProvenError(
	ctx: IExecuteFunctions,
	upload: PreparedUpload,
	sameName: IDataObject[],
): NotProvenError {
	const how = `Open them with Scan → Get to see whether one is this document, or look for the file's scan under another name with Scan → Get Many (template ${upload.templateId}); to upload regardless, change the file's bytes or use another template.`;
	const intro = `The service said this file was already uploaded with this template, so no credit was used. "Return Existing Scan" outputs a scan only when its stored name carries this file's content fingerprint (".ds-${upload.fingerprint}"), which the node adds to the names it uploads (from node version 1.1 by default). A scan uploaded without it (node version 1 with "Error", or "Keep Exact File Name") carries none, and a file name alone does not prove which document a scan holds: another document may have had the same name.`;
	const message =
		sameName.length > 0
			? `Item ${upload.itemIndex}: the service says "${upload.file.fileName}" was already uploaded with template ${upload.templateId}; ${plural(sameName.length, 'scan')} of that template ha${sameName.length === 1 ? 's' : 've'} this name but no content fingerprint (scan IDs ${idList(ids(sameName))}), so none is output`
			: `Item ${upload.itemIndex}: the service says "${upload.file.fileName}" was already uploaded with template ${upload.templateId}, but no scan of that template carries this file's fingerprint (".ds-${upload.fingerprint}") or its name`;
	return new NotProvenError(
		ctx.getNode(),
		message,
		{
			itemIndex: upload.itemIndex,
			description:
				sameName.length > 0
					? `${intro} ${how}`
					: `${intro} The earlier upload was made under another file name. ${how}`,
		},
		ids(sameName),
	);
}
