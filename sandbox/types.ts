/**
 * Public types of the Document Scanning API sandbox.
 * Internal records (ScanRecord, WebhookRecord, ...) live in state.ts.
 */

export type Envelope = 'data' | 'bare';
export type ActiveFlag = 'is_active' | 'active' | 'status';
export type ErrorsShape = 'map' | 'list';

export const SCAN_STATUSES = [
	'uploaded',
	'processing',
	'completed',
	'validation_failed',
	'failed',
] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

export const OUTCOMES = ['completed', 'validation_failed', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const EXTRACTION_MODES = ['scalar', 'tabular', 'mixed', 'vision'] as const;
export type ExtractionMode = (typeof EXTRACTION_MODES)[number];

export const WEBHOOK_EVENTS = ['scan.completed', 'scan.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface SandboxOptions {
	/** Default 0 (random free port); the CLI defaults to 8787. */
	port?: number;
	/** Default '127.0.0.1'. */
	host?: string;
	/** 'data' (default): `{data, meta, links}` / `{data: {...}}`; 'bare': bare arrays and objects. */
	envelope?: Envelope;
	/** How a webhook record shows activity. Default 'is_active'. */
	activeFlag?: ActiveFlag;
	/** Shape of `errors` in 422 responses. Default 'map'. */
	errorsShape?: ErrorsShape;
	/** How an uploaded file's name is stored: 'basename' (default: folder part removed, as Laravel's client name) or 'asSent'. */
	storedFilename?: 'asSent' | 'basename';
	/**
	 * The spec does not say whether a file the account already has for the template is refused
	 * with 409 before the limits are checked or after them: 'afterLimits' (default) answers 429 /
	 * 402 first, 'beforeLimits' answers 409 first.
	 */
	duplicateCheck?: 'afterLimits' | 'beforeLimits';
	/**
	 * The spec does not say whether GET /scans lists whole scans: 'full' (default) lists every
	 * field, 'brief' only id, status, filename, template_id, created_at and updated_at.
	 */
	listedScans?: 'full' | 'brief';
	/**
	 * The spec does not show the webhook record: 'kept' (default) stores and lists a webhook's
	 * url as given, 'dropped' without its query (`?…`).
	 */
	webhookUrlQuery?: 'kept' | 'dropped';
	/** The body of a `scan.failed` delivery: 'scan_id' (default), 'id', 'topLevel', 'noMessage' or 'extra' (engine/failed-bodies.ts). */
	failedBody?: 'scan_id' | 'id' | 'topLevel' | 'noMessage' | 'extra';
	/** A delivery's `timestamp` is this long before it is sent (a delivery that left the queue late). Default 0. */
	deliveryLateMs?: number;
	/** Allow http:// and loopback/private webhook hosts. Default false. */
	allowInsecureWebhookUrls?: boolean;
	/** Delay of each processing step (uploaded -> processing -> terminal). Default 1000. */
	processingDelayMs?: number;
	/** Delay before every API request is handled, like a network round trip. Default 0. */
	latencyMs?: number;
	/** Accepted uploads per rolling hour and account before 429. Default 200. */
	rateLimitPerHour?: number;
	/** Send Retry-After with 429. Default false. */
	retryAfter?: boolean;
	/** How long a delivery waits for the receiver. Default 10000. */
	deliveryTimeoutMs?: number;
	/** Create the default accounts and templates. Default true. */
	seed?: boolean;
	/** Extra API keys for the default account (at most 4; the account holds 5 keys). Default none. */
	extraApiKeys?: string[];
	/** One line per request. Never receives API keys or webhook secrets. Default: no logging. */
	log?: (line: string) => void;
}

/** Options that setOptions() may change while the sandbox runs. */
export const LIVE_OPTION_KEYS = [
	'envelope',
	'activeFlag',
	'errorsShape',
	'storedFilename',
	'duplicateCheck',
	'listedScans',
	'webhookUrlQuery',
	'failedBody',
	'deliveryLateMs',
	'allowInsecureWebhookUrls',
	'processingDelayMs',
	'latencyMs',
	'rateLimitPerHour',
	'retryAfter',
	'deliveryTimeoutMs',
	'log',
] as const;

export type FaultKind =
	'status500' | 'drop' | 'latency' | 'dropAfterCommit' | 'status' | 'redirect' | 'hold';

export interface FaultSpec {
	/** HTTP method to match (case-insensitive); any when omitted. */
	method?: string;
	/** Regex source matched against the path after /api/v1, e.g. '^/scans$'; any when omitted. */
	path?: string;
	kind: FaultKind;
	/** For kind 'status'. */
	status?: number;
	/**
	 * For 'status' and 'status500': answer an HTML page naming the host (a web app's or a proxy's,
	 * e.g. status 200 or 400) instead of the API's JSON error.
	 */
	page?: boolean;
	/** Extra response headers for 'status' and 'status500', e.g. Retry-After. */
	headers?: Record<string, string>;
	/** For kind 'latency'. */
	latencyMs?: number;
	/**
	 * For kind 'redirect' (with `status` 301, 302, 303, 307 or 308, default 302): the `Location`
	 * is the request's own path and query on the Base URL's origin (`same`, default) or on the
	 * sandbox's other origin (`other`, `Sandbox.otherOrigin`), which serves the same API.
	 */
	to?: 'same' | 'other';
	/** How many matching requests the fault applies to. Default 1. */
	times?: number;
	/** How many matching requests pass untouched before the fault applies. Default 0. */
	after?: number;
}

export type AuthScheme = 'bearer' | 'x-api-key' | 'none';

export interface RequestLogEntry {
	method: string;
	/** Path after /api/v1 (e.g. '/scans/3'); requests outside the prefix keep their full path. */
	path: string;
	query: Record<string, string>;
	/** Status sent, or the status that would have been sent; null when the socket was dropped before processing. */
	status: number | null;
	/** Set when a fault was applied to this request. */
	fault?: FaultKind;
	authScheme: AuthScheme;
	/** ISO 8601 time on the virtual clock. */
	at: string;
	/** The same time in milliseconds (arrival of the request, before any latency). */
	atMs?: number;
	/** Virtual time in milliseconds when the answer was ready (after any latency); absent when dropped. */
	doneAtMs?: number;
	/** Set when the request reached the sandbox's other origin (a redirect target), not the Base URL's. */
	origin?: 'other';
	/** POST /scans that created a scan (also when its answer was then dropped): the scan's ID. */
	scanId?: number;
	/** With `scanId`: the SHA-256 (hex) of the file that scan holds. */
	contentSha256?: string;
}

export interface DeliveryRecord {
	webhookId: number;
	scanId: number | null;
	url: string;
	event: WebhookEvent;
	/** Receiver's HTTP status; absent when no response came. */
	status?: number;
	/** Transport error (timeout, refused, ...); absent when a response came. */
	error?: string;
	success: boolean;
	/** Raw body sent (the signed bytes). */
	body: string;
	/** Headers sent. */
	headers: Record<string, string>;
	durationMs: number;
	/** A repeat (control `repeatDelivery`): the index of the delivery it sends again. */
	repeatOf?: number;
	/** A repeat's attempt number (the first send is 1). */
	attempt?: number;
}

export interface AccountSnapshot {
	id: number;
	business: boolean;
	remaining_scans: number;
	total_scans: number;
	used_scans: number;
}

export interface TemplateView {
	id: number;
	name: string;
	extraction_mode: ExtractionMode;
	usage_count: number;
	created_at: string;
	active: boolean;
}

export interface CreateAccountInput {
	apiKeys: string[];
	business?: boolean;
	credits?: number;
}

export interface CreateTemplateInput {
	apiKey?: string;
	name: string;
	extraction_mode: ExtractionMode;
	active?: boolean;
}

export interface SeedScansInput {
	apiKey?: string;
	count: number;
	/** How long ago (virtual clock) the scans were created; default 0 (now). Older than an hour: outside the rolling hour a client counts. */
	age_ms?: number;
	/** Made one after another this far apart (virtual clock), the last `age_ms` ago; default 0 (all at once). */
	apart_ms?: number;
	template_id?: number;
	status?: ScanStatus;
	reviewed_data?: Record<string, unknown> | null;
	/** Stored as given instead of the template's invented data (e.g. tables under other keys). */
	extracted_data?: Record<string, unknown> | null;
	/** The stored file name; `{id}` is replaced by the scan's ID. Default `seeded-scan-{id}.pdf`. */
	filename?: string;
	/**
	 * SHA-256 (hex) of the content the scan holds, so that an upload of those bytes gets 409:
	 * a history of the same bytes under another name. Only with `count` 1.
	 */
	content_sha256?: string;
}
