/**
 * The uploads of one execution: the one module that owns them. It prepares each item's file,
 * checks the account's limits before the first upload, sends each file at most once per
 * document, knows which scan holds which file, and names every scan the execution paid for
 * when the execution stops. Outcomes are typed; errors are the typed errors of `errors.ts`.
 * It lives in the execution's scope only (n8n may run executions in other processes).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Pace, RequestPace } from '../../shared/pace';
import { httpStatusOf } from '../../shared/transport';
import { asNodeError } from '../execution/items';
import { goesOnAfterFailure } from '../execution/tool';
import { limitsCheckError, refusedError } from './budget/errors';
import { LimitsGate } from './budget/gate';
import { SERVICE_HOURLY_LIMIT } from './budget/window';
import { AlreadyUploadedError, OutcomeUnknownError, sameFileFailed } from './errors';
import type { FoundScan } from './identify';
import { afterConflict, afterLostAnswers, alreadyUploadedError } from './identify';
import { UploadLedger } from './ledger';
import { checkBeforeUploads } from './precheck';
import type { PreparedUpload } from './prepare';
import { prepareUpload } from './prepare';
import { createdAtMs } from './scanPages';
import { send } from './send';
import { TemplateIndexes } from './templateScans';
import { wholeScan } from '../waiting/requests';
import { waitFailedError } from '../waiting/waitErrors';

/** What an item's upload gave it: always the scan that holds its file. */
export type UploadOutcome =
	/** This upload made the scan (one credit). */
	| { kind: 'created'; scan: IDataObject }
	| FoundScan
	/** Another item of this execution has the same file: its scan (no credit, nothing sent). */
	| { kind: 'sameFile'; scan: IDataObject; asItem: number };

/** An upload with the execution's pace its POSTs wait for. */
type PacedUpload = PreparedUpload & { pace?: RequestPace };

/** What the ledger records of any upload. */
const ledgerEntry = (upload: PreparedUpload) => ({
	itemIndex: upload.itemIndex,
	fileName: upload.file.fileName,
	fingerprinted: upload.fingerprint !== undefined,
});

/** A promise with its resolve and reject: an item's outcome, which its repeats wait for. */
function settled<T>() {
	let resolve!: (value: T) => void;
	let reject!: (error: unknown) => void;
	const promise = new Promise<T>((yes, no) => {
		resolve = yes;
		reject = no;
	});
	promise.catch(() => undefined);
	return { promise, resolve, reject };
}

export class UploadSession {
	private readonly prepared = new Map<number, PreparedUpload>();
	private readonly indexes = new TemplateIndexes();
	private readonly ledger = new UploadLedger();
	private gate = new LimitsGate(SERVICE_HOURLY_LIMIT);
	/** Documents the check before the first upload proved the service has: their scans. */
	private known = new Map<number, IDataObject>();
	/** Items whose file an earlier item of the batch has: that item. */
	private readonly leadOf = new Map<number, number>();
	/** The outcome of every item other items wait for. */
	private readonly outcomes = new Map<number, ReturnType<typeof settled<UploadOutcome>>>();
	/** Scans items of this execution got: each holds that item's file, so never another's. */
	private readonly taken = new Set<number>();
	/** The batch's items that upload their file, and those whose upload got its scan. */
	private leads: number[] = [];
	private readonly scanned = new Set<number>();

	/** Local checks of one item (no request): its settings and its file. */
	async prepare(ctx: IExecuteFunctions, itemIndex: number): Promise<void> {
		this.prepared.set(itemIndex, await prepareUpload(ctx, itemIndex, ctx.getInputData().length));
	}

	/** Whether the item repeats an earlier item's file (it waits for that item, sending nothing). */
	isRepeat(itemIndex: number): boolean {
		return this.leadOf.has(itemIndex);
	}

	/**
	 * Before the first upload: finds the batch's repeats and checks the limits (see
	 * precheck.ts). Returns the items that fail before any upload: with "Error", the documents
	 * the service provably has already; with Continue On Fail, every item when the check
	 * itself failed.
	 */
	async begin(
		ctx: IExecuteFunctions,
		ready: number[],
		hourlyLimit: number,
	): Promise<Map<number, Error>> {
		const leads: PreparedUpload[] = [];
		const firstOf = new Map<string, number>();
		for (const itemIndex of ready) {
			const upload = this.prepared.get(itemIndex)!;
			const first = upload.fileKey === undefined ? undefined : firstOf.get(upload.fileKey);
			if (first !== undefined) {
				this.leadOf.set(itemIndex, first);
				if (!this.outcomes.has(first)) this.outcomes.set(first, settled());
				continue;
			}
			if (upload.fileKey !== undefined) firstOf.set(upload.fileKey, itemIndex);
			leads.push(upload);
		}

		this.leads = leads.map((upload) => upload.itemIndex);
		const held = new Map<number, Error>();
		try {
			const repeats = ready.length - leads.length;
			const check = await checkBeforeUploads(ctx, leads, repeats, hourlyLimit, this.indexes);
			this.gate = check.gate;
			this.known = check.known;
		} catch (error) {
			if (!goesOnAfterFailure(ctx)) throw asNodeError(ctx, error);
			for (const itemIndex of ready)
				held.set(itemIndex, limitsCheckError(ctx.getNode(), itemIndex, error));
			return held;
		}
		// With "Error", a document the service provably has fails, and so do its repeats.
		for (const itemIndex of ready) {
			const scan = this.known.get(this.leadOf.get(itemIndex) ?? itemIndex);
			const upload = this.prepared.get(itemIndex)!;
			if (scan && upload.onDuplicate === 'error')
				held.set(itemIndex, alreadyUploadedError(ctx, upload, scan));
		}
		// A held item never runs: the repeats waiting for it learn why at once.
		for (const [itemIndex, error] of held) this.outcomes.get(itemIndex)?.reject(error);
		return held;
	}

	/**
	 * Uploads one item's file (not a repeat), at most once per document; its POSTs wait for a
	 * place in the execution's `pace`.
	 */
	async upload(ctx: IExecuteFunctions, itemIndex: number, pace?: Pace): Promise<UploadOutcome> {
		const waiting = this.outcomes.get(itemIndex);
		try {
			const found = await this.uploadOnce(ctx, { ...this.prepared.get(itemIndex)!, pace });
			// One rule for every way a scan was found: a final one is output whole.
			const scan = await whole(ctx, found.scan, itemIndex, pace);
			const outcome = { ...found, scan };
			this.scanned.add(itemIndex);
			waiting?.resolve(outcome);
			return outcome;
		} catch (error) {
			waiting?.reject(error);
			throw asNodeError(ctx, error);
		}
	}

	/** An item whose file an earlier item uploads: that item's scan, or why it has none. */
	async repeat(ctx: IExecuteFunctions, itemIndex: number): Promise<UploadOutcome> {
		const upload = this.prepared.get(itemIndex)!;
		const lead = this.leadOf.get(itemIndex)!;
		let outcome: UploadOutcome;
		try {
			outcome = await this.outcomes.get(lead)!.promise;
		} catch (error) {
			// The lead refused its file as already uploaded ("Error"): this item's own setting
			// gets it the scan that holds the file, as after its own 409. Without Continue On Fail
			// the lead's failure stops the node: nothing is read after it (issue 31 §4).
			const own = error instanceof AlreadyUploadedError && upload.onDuplicate === 'returnExisting';
			if (!own || !goesOnAfterFailure(ctx))
				throw sameFileFailed(ctx.getNode(), upload.itemIndex, lead, error);
			const index = this.indexes.of(upload.templateId);
			const conflict = { kind: 'conflict' as const, error, at: Date.now() };
			const found = await afterConflict(ctx, index, upload, conflict, this.taken);
			return { ...found, scan: await whole(ctx, found.scan, itemIndex) };
		}
		if (upload.onDuplicate === 'returnExisting')
			return { kind: 'sameFile', scan: outcome.scan, asItem: lead };
		throw new AlreadyUploadedError(
			ctx.getNode(),
			`Item ${itemIndex}: "${upload.file.fileName}" is the same file as item ${lead}'s, which has scan ${String(outcome.scan.id)} of template ${upload.templateId}`,
			{
				itemIndex,
				description: `The service refuses the same file twice for one template, so the node did not send it again and no credit was used for this item. To output that scan for this item too, set "If Already Uploaded" to "Return Existing Scan".`,
			},
			Number(outcome.scan.id),
		);
	}

	/** The error that stops the node after the first upload: it names what the execution paid for. */
	async stopError(ctx: IExecuteFunctions, error: unknown): Promise<unknown> {
		const status = this.gate.closedStatus;
		if (status === undefined) return this.ledger.stopError(ctx.getNode(), error, undefined);
		// The documents a re-run still has to upload, and when all of them fit.
		const left = this.leads.filter((item) => !this.scanned.has(item) && !this.known.has(item));
		const allFitAt = status === 429 ? await this.gate.allFitAt(ctx, left.length) : undefined;
		const limit = { status, hold: await this.gate.refused(ctx, status), left: left.length };
		return this.ledger.stopError(ctx.getNode(), error, { ...limit, allFitAt });
	}

	private async uploadOnce(ctx: IExecuteFunctions, upload: PacedUpload): Promise<UploadOutcome> {
		const known = this.known.get(upload.itemIndex);
		if (known) return { kind: 'existing', scan: known };
		await this.gate.enter(ctx, upload.itemIndex);
		let charged: boolean | undefined;
		try {
			const pace = upload.pace && this.gate.paced(ctx, upload.itemIndex, upload.pace);
			const outcome = await this.send(ctx, { ...upload, pace });
			this.taken.add(Number(outcome.scan.id));
			charged = outcome.kind === 'created' || outcome.kind === 'recovered';
			if (charged)
				this.ledger.recordScan({ ...ledgerEntry(upload), scanId: Number(outcome.scan.id) });
			this.gate.settle(charged, charged ? (createdAtMs(outcome.scan) ?? Date.now()) : undefined);
			return outcome;
		} catch (error) {
			if (charged === undefined) this.gate.settle(error instanceof OutcomeUnknownError);
			return await this.afterRefusal(ctx, upload, error);
		}
	}

	private async send(ctx: IExecuteFunctions, upload: PacedUpload): Promise<UploadOutcome> {
		const index = this.indexes.of(upload.templateId);
		const result = await send.call(ctx, upload);
		if (result.kind === 'created') return result;
		try {
			return result.kind === 'conflict'
				? await afterConflict(ctx, index, upload, result, this.taken)
				: await afterLostAnswers(ctx, index, upload, result, this.taken);
		} catch (error) {
			if (error instanceof OutcomeUnknownError)
				this.ledger.recordUncertain({ ...ledgerEntry(upload), candidates: error.candidates });
			throw asNodeError(ctx, error);
		}
	}

	/**
	 * An upload failed. A 429 or 402 (also on a re-send) closes the gate: no further upload is
	 * sent. The spec does not say whether the service answers a limit before or after it looks
	 * for the file, so with "Return Existing Scan" a refused file's scan is looked for among the
	 * scans this execution already read (never more pages: a run while the hour is full would pay
	 * for the whole listing); not found there, the item says what that means.
	 */
	private async afterRefusal(
		ctx: IExecuteFunctions,
		upload: PreparedUpload,
		error: unknown,
	): Promise<UploadOutcome> {
		const refused = httpStatusOf(error);
		const status = error instanceof OutcomeUnknownError ? error.limitStatus : refused;
		if (status !== 429 && status !== 402) throw error;
		const hold = await this.gate.refused(ctx, status);
		if (error instanceof OutcomeUnknownError) throw error;
		const lookedFor = upload.onDuplicate === 'returnExisting' && upload.fingerprint !== undefined;
		const known = lookedFor ? this.indexes.of(upload.templateId).proven(upload.fingerprint!) : [];
		if (known.length === 1) return { kind: 'existing', scan: known[0] };
		if (goesOnAfterFailure(ctx))
			throw refusedError(ctx.getNode(), upload.itemIndex, error as Error, hold, status, lookedFor);
		throw error;
	}
}

/** The found scan whole; a failed read names the scan, which is made (and may be charged). */
async function whole(ctx: IExecuteFunctions, scan: IDataObject, itemIndex: number, pace?: Pace) {
	try {
		return await wholeScan.call(ctx, scan, itemIndex, pace);
	} catch (error) {
		throw waitFailedError(ctx, error, Number(scan.id), itemIndex, 'reading');
	}
}
