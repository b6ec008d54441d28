// The sandbox's records (accounts, templates, scans, webhooks, delivery logs) and its limits.
import { ExtractionMode, Outcome, ScanStatus, WebhookEvent } from '../types';

export const DEFAULT_API_KEY = 'sk_test_sandbox_key';
export const NO_BUSINESS_API_KEY = 'sk_test_no_business';

export const MAX_API_KEYS_PER_ACCOUNT = 5;
export const MAX_WEBHOOKS_PER_ACCOUNT = 10;
export const LOGS_KEPT_PER_WEBHOOK = 100;
export const ROLLING_WINDOW_MS = 60 * 60 * 1000;

export interface AccountRecord {
	id: number;
	apiKeys: string[];
	business: boolean;
	totalScans: number;
	usedScans: number;
	/** Virtual-clock times of accepted uploads in the rolling window (oldest first). */
	acceptedUploads: number[];
}

export interface TemplateRecord {
	id: number;
	accountId: number;
	name: string;
	extractionMode: ExtractionMode;
	active: boolean;
	usageCount: number;
	createdAt: number;
}

export interface ScanRecord {
	id: number;
	accountId: number;
	templateId: number;
	filename: string;
	status: ScanStatus;
	confidence: number | null;
	extractedData: Record<string, unknown> | null;
	reviewedData: Record<string, unknown> | null;
	validationErrors: ValidationIssue[] | null;
	isPartial: boolean;
	errorMessage: string | null;
	createdAt: number;
	updatedAt: number;
	/** sha256 of the file content (duplicate detection). */
	contentSha256: string;
	/** The text lines of an uploaded PDF that has readable text (pdf-text.ts); the result is read from them. */
	documentText?: string[];
	/** How many times the scan was processed again after it finished (control `reprocessScan`). */
	revision?: number;
	/** Whether a credit was taken (false for seeded scans and after a refund). */
	charged: boolean;
	/** Terminal state the background processing will reach. */
	plannedOutcome: Outcome;
	/**
	 * A status the API does not list (e.g. `cancelled`), shown instead of `status`; set by the
	 * control surface only. Processing stops for such a scan.
	 */
	shownStatus?: string;
}

export interface ValidationIssue {
	field: string;
	rule: string;
	message: string;
}

export interface WebhookRecord {
	id: number;
	accountId: number;
	name: string;
	url: string;
	events: WebhookEvent[];
	active: boolean;
	failureCount: number;
	secret: string;
	createdAt: number;
	lastDeliveryAt: number | null;
}

export interface WebhookLogRecord {
	id: number;
	webhookId: number;
	scanId: number | null;
	event: WebhookEvent;
	url: string;
	statusCode: number | null;
	success: boolean;
	error: string | null;
	durationMs: number;
	attempt: number;
	createdAt: number;
}

export interface ScanFilter {
	status?: ScanStatus;
	templateId?: number;
}

/** A scan as it is right after upload (status `uploaded`, nothing extracted yet). */
export function newScanRecord(
	input: Pick<
		ScanRecord,
		| 'id'
		| 'accountId'
		| 'templateId'
		| 'filename'
		| 'contentSha256'
		| 'charged'
		| 'plannedOutcome'
		| 'documentText'
	>,
	now: number,
): ScanRecord {
	return {
		...input,
		status: 'uploaded',
		confidence: null,
		extractedData: null,
		reviewedData: null,
		validationErrors: null,
		isPartial: false,
		errorMessage: null,
		createdAt: now,
		updatedAt: now,
	};
}
