/** Turns internal records into API JSON and applies the configured envelope. */
import { isoWithOffset, isoZulu } from '../engine/clock';
import {
	AccountRecord,
	ScanRecord,
	TemplateRecord,
	WebhookLogRecord,
	WebhookRecord,
} from '../engine/records';
import { ActiveFlag, Envelope } from '../types';

export const PAGE_SIZE = 25;

export function presentScan(scan: ScanRecord): Record<string, unknown> {
	return {
		id: scan.id,
		status: scan.shownStatus ?? scan.status,
		filename: scan.filename,
		template_id: scan.templateId,
		confidence: scan.confidence,
		extracted_data: scan.extractedData,
		reviewed_data: scan.reviewedData,
		validation_errors: scan.validationErrors,
		is_partial: scan.isPartial,
		error_message: scan.errorMessage,
		created_at: isoWithOffset(scan.createdAt),
		updated_at: isoWithOffset(scan.updatedAt),
	};
}

/** A scan as GET /scans lists it: whole, or (option listedScans 'brief') its summary. */
export function presentListedScan(scan: ScanRecord, brief: boolean): Record<string, unknown> {
	const full = presentScan(scan);
	if (!brief) return full;
	const { id, status, filename, template_id, created_at, updated_at } = full;
	return { id, status, filename, template_id, created_at, updated_at };
}

/** The 201 body of POST /scans carries only these fields. */
export function presentCreatedScan(scan: ScanRecord): Record<string, unknown> {
	return {
		id: scan.id,
		status: scan.status,
		template_id: scan.templateId,
		filename: scan.filename,
		created_at: isoWithOffset(scan.createdAt),
	};
}

export function presentTemplate(template: TemplateRecord): Record<string, unknown> {
	return {
		id: template.id,
		name: template.name,
		extraction_mode: template.extractionMode,
		usage_count: template.usageCount,
		created_at: isoZulu(template.createdAt),
	};
}

export function presentBalance(account: AccountRecord, remaining: number): Record<string, unknown> {
	return {
		remaining_scans: remaining,
		total_scans: account.totalScans,
		used_scans: account.usedScans,
	};
}

function activeField(flag: ActiveFlag, active: boolean): Record<string, unknown> {
	if (flag === 'status') return { status: active ? 'active' : 'inactive' };
	return { [flag]: active };
}

export function presentWebhook(webhook: WebhookRecord, flag: ActiveFlag): Record<string, unknown> {
	return {
		id: webhook.id,
		name: webhook.name,
		url: webhook.url,
		events: [...webhook.events],
		...activeField(flag, webhook.active),
		failure_count: webhook.failureCount,
		created_at: isoWithOffset(webhook.createdAt),
		last_delivery_at:
			webhook.lastDeliveryAt === null ? null : isoWithOffset(webhook.lastDeliveryAt),
	};
}

export function presentLog(log: WebhookLogRecord): Record<string, unknown> {
	return {
		id: log.id,
		webhook_id: log.webhookId,
		scan_id: log.scanId,
		event: log.event,
		url: log.url,
		status_code: log.statusCode,
		success: log.success,
		error: log.error,
		duration_ms: log.durationMs,
		attempt: log.attempt,
		created_at: isoWithOffset(log.createdAt),
	};
}

/** A single object: `{data: {...}}` or bare. */
export function wrapOne(envelope: Envelope, item: unknown): unknown {
	return envelope === 'data' ? { data: item } : item;
}

/** An unpaginated collection: `{data: [...]}` or a bare array. */
export function wrapList(envelope: Envelope, items: unknown[]): unknown {
	return envelope === 'data' ? { data: items } : items;
}

export interface Page<T> {
	items: T[];
	meta: { current_page: number; last_page: number; per_page: number; total: number };
	links: { first: string; last: string; prev: string | null; next: string | null };
}

/**
 * Cuts page `page` (1-based) out of `all`. Links repeat the request's other query parameters.
 * A page beyond the last one is empty.
 */
export function paginate<T>(
	all: T[],
	page: number,
	pageUrl: (page: number) => string,
	reportedPages: (lastPage: number) => number = (lastPage) => lastPage,
): Page<T> {
	// `meta` may report another count than the real one (listing option metaPages).
	const realLast = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
	const lastPage = reportedPages(realLast);
	const total = lastPage === realLast ? all.length : lastPage * PAGE_SIZE;
	return {
		items: all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
		meta: { current_page: page, last_page: lastPage, per_page: PAGE_SIZE, total },
		links: {
			first: pageUrl(1),
			last: pageUrl(lastPage),
			prev: page > 1 ? pageUrl(Math.min(page - 1, lastPage)) : null,
			next: page < lastPage ? pageUrl(page + 1) : null,
		},
	};
}

/** `{data, meta, links}` or the bare array of the page's items. */
export function wrapPage(envelope: Envelope, page: Page<unknown>): unknown {
	return envelope === 'data'
		? { data: page.items, meta: page.meta, links: page.links }
		: page.items;
}
