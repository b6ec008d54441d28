import { FAILED_BODIES, FailedBody } from './failed-bodies';
import { LIVE_OPTION_KEYS, SandboxOptions } from '../types';

export interface ResolvedOptions {
	port: number;
	host: string;
	envelope: 'data' | 'bare';
	activeFlag: 'is_active' | 'active' | 'status';
	errorsShape: 'map' | 'list';
	/** How the service stores an uploaded file's name: without any folder part (default), or as sent. */
	storedFilename: 'asSent' | 'basename';
	/** Whether an upload of a file the account already has for the template gets its 409 before the limits (429, 402) or after them (default). */
	duplicateCheck: 'afterLimits' | 'beforeLimits';
	/** Records of GET /scans: every field of a scan (default), or only id, status, filename, template_id and the times. */
	listedScans: 'full' | 'brief';
	/** Webhook urls stored as given (default), or without their query. */
	webhookUrlQuery: 'kept' | 'dropped';
	/** The body of a scan.failed delivery (engine/failed-bodies.ts). */
	failedBody: FailedBody;
	/** How long before it is sent a delivery's event happened (its `timestamp`): a delivery that left the queue late. */
	deliveryLateMs: number;
	allowInsecureWebhookUrls: boolean;
	processingDelayMs: number;
	latencyMs: number;
	rateLimitPerHour: number;
	retryAfter: boolean;
	deliveryTimeoutMs: number;
	seed: boolean;
	extraApiKeys: string[];
	log?: (line: string) => void;
}

export const DEFAULT_OPTIONS: ResolvedOptions = {
	port: 0,
	host: '127.0.0.1',
	envelope: 'data',
	activeFlag: 'is_active',
	errorsShape: 'map',
	storedFilename: 'basename',
	duplicateCheck: 'afterLimits',
	listedScans: 'full',
	webhookUrlQuery: 'kept',
	failedBody: 'scan_id',
	deliveryLateMs: 0,
	allowInsecureWebhookUrls: false,
	processingDelayMs: 1000,
	latencyMs: 0,
	rateLimitPerHour: 200,
	retryAfter: false,
	deliveryTimeoutMs: 10_000,
	seed: true,
	extraApiKeys: [],
};

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
	if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
		throw new Error(
			`Option ${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`,
		);
	}
	return value as T;
}

function nonNegativeInt(name: string, value: unknown): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
		throw new Error(`Option ${name} must be a non-negative integer (got ${JSON.stringify(value)})`);
	}
	return value;
}

function bool(name: string, value: unknown): boolean {
	if (typeof value !== 'boolean')
		throw new Error(`Option ${name} must be a boolean (got ${JSON.stringify(value)})`);
	return value;
}

/**
 * Validates `partial` and merges it over `base`. Keys whose value is undefined are ignored.
 * Throws on unknown keys and invalid values.
 */
export function mergeOptions(
	base: ResolvedOptions,
	partial: Partial<SandboxOptions> = {},
): ResolvedOptions {
	const next: ResolvedOptions = { ...base, extraApiKeys: [...base.extraApiKeys] };
	for (const [key, value] of Object.entries(partial)) {
		if (value === undefined) continue;
		switch (key) {
			case 'port':
				next.port = nonNegativeInt(key, value);
				break;
			case 'host':
				if (typeof value !== 'string' || value === '')
					throw new Error('Option host must be a non-empty string');
				next.host = value;
				break;
			case 'envelope':
				next.envelope = oneOf(key, value, ['data', 'bare']);
				break;
			case 'activeFlag':
				next.activeFlag = oneOf(key, value, ['is_active', 'active', 'status']);
				break;
			case 'errorsShape':
				next.errorsShape = oneOf(key, value, ['map', 'list']);
				break;
			case 'storedFilename':
				next.storedFilename = oneOf(key, value, ['asSent', 'basename']);
				break;
			case 'duplicateCheck':
				next.duplicateCheck = oneOf(key, value, ['afterLimits', 'beforeLimits']);
				break;
			case 'listedScans':
				next.listedScans = oneOf(key, value, ['full', 'brief']);
				break;
			case 'webhookUrlQuery':
				next.webhookUrlQuery = oneOf(key, value, ['kept', 'dropped']);
				break;
			case 'failedBody':
				next.failedBody = oneOf(key, value, FAILED_BODIES);
				break;
			case 'allowInsecureWebhookUrls':
			case 'retryAfter':
			case 'seed':
				next[key] = bool(key, value);
				break;
			case 'processingDelayMs':
			case 'deliveryLateMs':
			case 'latencyMs':
			case 'rateLimitPerHour':
			case 'deliveryTimeoutMs':
				next[key] = nonNegativeInt(key, value);
				break;
			case 'extraApiKeys':
				if (!Array.isArray(value) || !value.every((k) => typeof k === 'string' && k !== '')) {
					throw new Error('Option extraApiKeys must be an array of non-empty strings');
				}
				next.extraApiKeys = [...value];
				break;
			case 'log':
				if (typeof value !== 'function') throw new Error('Option log must be a function');
				next.log = value as (line: string) => void;
				break;
			default:
				throw new Error(`Unknown option ${key}`);
		}
	}
	return next;
}

/** Like mergeOptions, but only for the options that may change while the sandbox runs. */
export function mergeLiveOptions(
	base: ResolvedOptions,
	partial: Partial<SandboxOptions>,
): ResolvedOptions {
	const live: readonly string[] = LIVE_OPTION_KEYS;
	const rejected = Object.keys(partial).filter((k) => !live.includes(k));
	if (rejected.length > 0) {
		throw new Error(
			`Option(s) ${rejected.join(', ')} cannot change while running (use reset for seed/extraApiKeys; restart for port/host)`,
		);
	}
	return mergeOptions(base, partial);
}

/** The settings as plain JSON (for the CLI banner and GET /__sandbox/options). */
export function describeOptions(options: ResolvedOptions): Record<string, unknown> {
	const { log: _log, ...rest } = options;
	return rest;
}
