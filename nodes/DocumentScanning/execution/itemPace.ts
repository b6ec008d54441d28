import { httpStatusOf, isOutcomeUnknown } from '../../shared/transport';
import type { Answer } from '../../shared/pace';

/**
 * What a failed item tells the execution's pace, when each item takes a place of it: its HTTP
 * status, or a lost answer; undefined for a failure that says nothing about the service (a
 * local check, a cancel).
 */
export function itemAnswer(error: unknown, ms: number): Answer | undefined {
	const status = httpStatusOf(error);
	if (status !== undefined) return { kind: 'item', ms, status };
	if (isOutcomeUnknown(error)) return { kind: 'item', ms, lost: true };
	return undefined;
}
