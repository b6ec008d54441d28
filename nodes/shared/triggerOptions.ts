import type { IDataObject, INodeProperties } from 'n8n-workflow';

/**
 * The options both triggers share (names fixed: a workflow can switch between the triggers),
 * and the one rule that decides whether a finished scan starts the workflow.
 */

export interface TriggerOptions {
	templateIds?: unknown;
	includeValidationFailed?: boolean;
	includeFullScan?: boolean;
	splitIntoRows?: boolean;
	replayTolerance?: unknown;
}

export const includeValidationFailedOption: INodeProperties = {
	displayName: 'Include Validation Failed',
	name: 'includeValidationFailed',
	type: 'boolean',
	default: true,
	description:
		'Whether "Scan Completed" also starts the workflow for scans with status validation_failed (data extracted, but a validation rule was violated)',
};

/** "Split Into Table Rows"; `per` names what one item stands for otherwise (a delivery, a scan). */
export function splitIntoRowsOption(per: 'delivery' | 'scan'): INodeProperties {
	return {
		displayName: 'Split Into Table Rows',
		name: 'splitIntoRows',
		type: 'boolean',
		default: false,
		description: `Whether to output one item per table row (e.g. invoice line items) instead of one item per ${per}. A scan without table rows gives one item with its fields.`,
	};
}

export const templateIdsOption: INodeProperties = {
	displayName: 'Template Names or IDs',
	name: 'templateIds',
	type: 'multiOptions',
	typeOptions: { loadOptionsMethod: 'getTemplates' },
	default: [],
	description:
		'Only start the workflow for scans of these templates. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
};

/** Template IDs of the option: a list (multi-select) or a comma-separated string (expression). */
export function templateIdSet(raw: unknown): Set<string> {
	const list = Array.isArray(raw)
		? raw
		: typeof raw === 'string' || typeof raw === 'number'
			? String(raw).split(',')
			: [];
	return new Set(list.map((entry) => String(entry).trim()).filter(Boolean));
}

/** Why a finished scan's event starts nothing, or undefined when it should run the workflow. */
export function filterReason(
	event: string,
	data: IDataObject,
	subscribed: string[],
	options: TriggerOptions,
): string | undefined {
	if (!subscribed.includes(event))
		return `event ${event || '(none)'} is not selected in this trigger`;
	const templates = templateIdSet(options.templateIds);
	// A delivery that does not name its template is let through: no failure goes unnoticed.
	if (templates.size > 0 && data.template_id !== undefined && data.template_id !== null) {
		if (!templates.has(String(data.template_id)))
			return `template ${String(data.template_id)} is not selected`;
	}
	if (
		event === 'scan.completed' &&
		options.includeValidationFailed === false &&
		data.status === 'validation_failed'
	) {
		return 'scans with status validation_failed are excluded';
	}
	return undefined;
}
