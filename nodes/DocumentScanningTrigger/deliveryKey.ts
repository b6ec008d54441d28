import { createHash } from 'crypto';

import { scanIdFromDelivery } from './scanId';

/**
 * The stable key of a delivery: what makes two deliveries the same one for the workflow.
 *
 * - `<event>:<scan_id>` (e.g. `scan.completed:42`) when the signed body names a positive
 *   integer `data.scan_id` (its exact digits, whether sent as a number or a string). A scan
 *   reaches its final state once and sends one event for it (spec, "States and
 *   transitions"), so a resend is the same delivery whether the service repeats the same bytes
 *   or signs it again with a new `timestamp`; it is also the identity the poll trigger emits
 *   each scan by.
 * - `sha256:<hex>` of the signed bytes otherwise (a body without a usable scan ID, such as the
 *   sample deliveries with `scan_id` 0): only identical bytes are the same delivery.
 *
 * Neither the secret nor anything derived from it is part of the key.
 */
export function deliveryKey(event: string, rawText: string, rawBody: Buffer): string {
	const scanId = scanIdFromDelivery(rawText);
	if ('id' in scanId) return `${event}:${scanId.id}`;
	return `sha256:${createHash('sha256').update(rawBody).digest('hex')}`;
}
