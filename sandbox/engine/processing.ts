/** Background processing: uploaded -> processing -> completed | validation_failed | failed. */
import { createHash } from 'node:crypto';
import { documentData, readDocument } from './document-data';
import { confidenceFor, extractData, extractionSeed, failureReason, violateRule } from './extract';
import { ResolvedOptions } from './options';
import { Scheduler } from './scheduler';
import { Store } from './state';
import { newScanRecord, ScanRecord } from './records';
import { ExtractionMode, Outcome, ScanStatus } from '../types';

/** Default outcome by file name: "fail" -> failed, "invalid" -> validation_failed, else completed. */
export function outcomeForFilename(filename: string): Outcome {
	const lower = filename.toLowerCase();
	if (lower.includes('fail')) return 'failed';
	if (lower.includes('invalid')) return 'validation_failed';
	return 'completed';
}

/**
 * Fills the result fields of a scan for a terminal status (no refund, no deliveries).
 * Used by background processing and by seeded scans.
 */
export function applyResult(scan: ScanRecord, mode: ExtractionMode, status: ScanStatus): void {
	// A scan processed again (revision 1, 2, …) gets new data: invented from another seed.
	const revision = scan.revision ?? 0;
	const seed = extractionSeed(
		scan.filename,
		revision > 0 ? `${scan.contentSha256}:${revision}` : scan.contentSha256,
	);
	scan.status = status;
	scan.confidence = null;
	scan.extractedData = null;
	scan.validationErrors = null;
	scan.errorMessage = null;
	if (status === 'completed' || status === 'validation_failed') {
		const facts = revision === 0 && scan.documentText && readDocument(scan.documentText);
		scan.extractedData = facts ? documentData(mode, facts) : extractData(mode, seed);
		scan.validationErrors =
			status === 'validation_failed' ? violateRule(mode, scan.extractedData) : [];
		scan.confidence = confidenceFor(status, seed);
	} else if (status === 'failed') {
		scan.errorMessage = failureReason(seed);
	}
}

/** A scan that is not stored anywhere, for sample deliveries. */
export function sampleScan(
	templateId: number,
	mode: ExtractionMode,
	status: Outcome,
	now: number,
): ScanRecord {
	const filename = 'sample-document.pdf';
	const scan = newScanRecord(
		{
			id: 0,
			accountId: 0,
			templateId,
			filename,
			contentSha256: createHash('sha256').update(filename).digest('hex'),
			charged: false,
			plannedOutcome: status,
		},
		now,
	);
	applyResult(scan, mode, status);
	return scan;
}

export interface ProcessorDeps {
	store: Store;
	scheduler: Scheduler;
	options: () => ResolvedOptions;
	/** Called once when a scan reaches a terminal status. */
	onTerminal: (scan: ScanRecord) => void;
}

export class Processor {
	private held = false;
	/** Scans whose next step came due while held. */
	private parked = new Set<number>();
	private nextOutcomes: Outcome[] = [];

	constructor(private readonly deps: ProcessorDeps) {}

	/** The outcome for the next upload: the queue first (FIFO), else the file-name rule. */
	planOutcome(filename: string): Outcome {
		return this.nextOutcomes.shift() ?? outcomeForFilename(filename);
	}

	setNextOutcomes(outcomes: Outcome[]): void {
		this.nextOutcomes = [...outcomes];
	}

	/** Starts background processing of a freshly uploaded scan. */
	start(scan: ScanRecord): void {
		this.schedule(scan.id);
	}

	/** While held, scans stay in their current status; on release each parked scan takes its next step after the delay. */
	hold(on: boolean): void {
		this.held = on;
		if (on) return;
		const due = [...this.parked];
		this.parked.clear();
		for (const id of due) this.schedule(id);
	}

	/**
	 * While held: takes the next processing step of one scan now (uploaded -> processing, or
	 * processing -> its outcome) and keeps it parked, so tests see each status for as long as
	 * they like, whatever the machine's speed. On release the scan goes on from there.
	 */
	stepHeld(scanId: number): ScanStatus {
		if (!this.held)
			throw new Error('step needs hold(true) first: processing runs on its own otherwise');
		const scan = this.deps.store.scan(scanId);
		if (!scan) throw new Error(`Scan ${scanId} not found.`);
		if (!this.advance(scan)) throw new Error(`Scan ${scanId} is already ${scan.status}`);
		if (scan.status === 'processing') this.parked.add(scanId);
		else this.parked.delete(scanId);
		return scan.status;
	}

	/** Forgets held scans and queued outcomes (timers are cancelled by the scheduler's owner). */
	reset(): void {
		this.held = false;
		this.parked.clear();
		this.nextOutcomes = [];
	}

	private schedule(scanId: number): void {
		this.deps.scheduler.after(this.deps.options().processingDelayMs, () => this.step(scanId));
	}

	private step(scanId: number): void {
		const { store } = this.deps;
		const scan = store.scan(scanId);
		if (!scan) return;
		if (this.held) {
			this.parked.add(scanId);
			return;
		}
		if (this.advance(scan) && scan.status === 'processing') this.schedule(scanId);
	}

	/** One processing step: uploaded -> processing, or processing -> its outcome; false when final already. */
	private advance(scan: ScanRecord): boolean {
		if (scan.shownStatus !== undefined) return false;
		if (scan.status === 'uploaded') {
			scan.status = 'processing';
			this.deps.store.touch(scan);
			return true;
		}
		if (scan.status === 'processing') {
			this.finish(scan);
			return true;
		}
		return false;
	}

	private finish(scan: ScanRecord): void {
		const { store } = this.deps;
		const template = store.template(scan.templateId);
		applyResult(scan, template?.extractionMode ?? 'scalar', scan.plannedOutcome);
		if (scan.status === 'failed') store.refund(scan);
		store.touch(scan);
		this.deps.onTerminal(scan);
	}
}
