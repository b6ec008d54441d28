import type { IDataObject } from 'n8n-workflow';

/**
 * The service's clock from an answer's `Date` header (epoch ms), or undefined without a
 * readable one. The one place that reads it: the upload limits, the upload path's listings and
 * the poll trigger count time on the service's clock, not n8n's.
 */
export function serverTimeOf(headers: IDataObject | undefined): number | undefined {
	const raw = headers?.date ?? headers?.Date;
	const value = typeof raw === 'string' ? Date.parse(raw) : NaN;
	return Number.isFinite(value) ? value : undefined;
}
