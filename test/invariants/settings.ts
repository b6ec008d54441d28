/**
 * The nodes' settings a case runs with: every option that changes a path (node version, If
 * Already Uploaded, also per item by expression, Wait for Completion, Output, Concurrency,
 * Hourly Upload Limit, Continue On Fail; the triggers' options), and the node parameters they
 * become, as a saved workflow holds them.
 */
import fc from 'fast-check';
import type { INodeParameters } from 'n8n-workflow';

import { ALL_EVENTS } from '../support/fixtures';

export type OnDuplicate = 'error' | 'returnExisting';

export interface UploadSettings {
	version: 1 | 1.1;
	/** `perItem`: an expression reads each item's own choice (`$json.onDuplicate`). */
	onDuplicate: OnDuplicate | 'perItem';
	storedFileName?: 'withFingerprint' | 'asIs';
	/**
	 * `byExpression`: an expression that reads each item's own choice and fails for the items
	 * of document 1 (a per-item setting that may fail after the upload, issue 39).
	 */
	waitForCompletion: boolean | 'byExpression';
	output: 'raw' | 'fields' | 'rows';
	concurrency?: number;
	hourlyLimit?: number;
	continueOnFail: boolean;
}

export interface GetManySettings {
	status?: 'uploaded' | 'processing' | 'completed' | 'validation_failed' | 'failed';
	template?: 1 | 2;
	returnAll: boolean;
	limit: number;
	continueOnFail: boolean;
}

export interface TriggerSettings {
	events: string[];
	includeValidationFailed: boolean;
	splitIntoRows: boolean;
	/** Webhook trigger only. */
	includeFullScan: boolean;
	/** Webhook trigger only: its node version (the replay tolerance's default: 300 s in 1, 3600 s in 1.1). */
	version?: 1 | 1.1;
}

/** The webhook trigger's replay tolerance in seconds (its default in each node version). */
export const toleranceSeconds = (settings: TriggerSettings): number =>
	settings.version === 1.1 ? 3_600 : 300;

/** Wait settings that keep a case short: reads from 0.2 s, 10 s at most. */
export const WAIT = { pollInterval: 0.2, maxPollInterval: 0.5, waitTimeout: 10 };

export const uploadSettingsArb: fc.Arbitrary<UploadSettings> = fc.record(
	{
		version: fc.constantFrom<1 | 1.1>(1, 1.1, 1.1),
		onDuplicate: fc.constantFrom<UploadSettings['onDuplicate']>(
			'error',
			'returnExisting',
			'returnExisting',
			'perItem',
			'perItem',
		),
		storedFileName: fc.constantFrom<'withFingerprint' | 'asIs'>('withFingerprint', 'asIs'),
		waitForCompletion: fc.constantFrom<UploadSettings['waitForCompletion']>(
			false,
			false,
			true,
			true,
			'byExpression',
		),
		output: fc.constantFrom<UploadSettings['output']>('raw', 'raw', 'fields', 'rows'),
		concurrency: fc.constantFrom(1, 2, 5, 64),
		hourlyLimit: fc.constantFrom(3, 10, 150),
		continueOnFail: fc.boolean(),
	},
	{ requiredKeys: ['version', 'onDuplicate', 'waitForCompletion', 'output', 'continueOnFail'] },
);

export const getManySettingsArb: fc.Arbitrary<GetManySettings> = fc.record(
	{
		status: fc.constantFrom<NonNullable<GetManySettings['status']>>(
			'processing',
			'processing',
			'uploaded',
			'completed',
			'failed',
			'validation_failed',
		),
		template: fc.constantFrom<1 | 2>(1, 2),
		returnAll: fc.boolean(),
		limit: fc.constantFrom(1, 25, 30, 100),
		continueOnFail: fc.boolean(),
	},
	{ requiredKeys: ['returnAll', 'limit', 'continueOnFail'] },
);

export const triggerSettingsArb: fc.Arbitrary<TriggerSettings> = fc.record({
	events: fc.constantFrom(ALL_EVENTS, ALL_EVENTS, ['scan.completed'], ['scan.failed']),
	includeValidationFailed: fc.constantFrom(true, true, false),
	splitIntoRows: fc.boolean(),
	includeFullScan: fc.boolean(),
	version: fc.constantFrom<1 | 1.1>(1, 1.1),
});

const rl = (value: number | string) => ({ __rl: true, mode: 'id', value: String(value) });

export function uploadParameters(settings: UploadSettings): INodeParameters {
	const options: INodeParameters = { ...WAIT };
	if (settings.onDuplicate === 'perItem') options.onDuplicate = '={{ $json.onDuplicate }}';
	else options.onDuplicate = settings.onDuplicate;
	if (settings.storedFileName && settings.onDuplicate !== 'returnExisting')
		options.storedFileName = settings.storedFileName;
	if (settings.waitForCompletion) options.output = settings.output;
	if (settings.concurrency !== undefined) options.concurrency = settings.concurrency;
	if (settings.hourlyLimit !== undefined) options.hourlyLimit = settings.hourlyLimit;
	return {
		resource: 'scan',
		operation: 'upload',
		templateId: rl(1),
		binaryPropertyName: 'data',
		waitForCompletion:
			settings.waitForCompletion === 'byExpression'
				? '={{ $json.doc === 1 ? $("No Such Node").item.json.choice : true }}'
				: settings.waitForCompletion,
		options,
	};
}

export function getManyParameters(settings: GetManySettings): INodeParameters {
	const filters: INodeParameters = {};
	if (settings.status) filters.status = settings.status;
	if (settings.template) filters.templateId = rl(settings.template);
	return {
		resource: 'scan',
		operation: 'getAll',
		returnAll: settings.returnAll,
		limit: settings.limit,
		filters,
		options: {},
	};
}

export function triggerParameters(settings: TriggerSettings, webhook: boolean): INodeParameters {
	const options: INodeParameters = {
		includeValidationFailed: settings.includeValidationFailed,
		splitIntoRows: settings.splitIntoRows,
	};
	if (webhook) options.includeFullScan = settings.includeFullScan;
	return { events: settings.events, options };
}
