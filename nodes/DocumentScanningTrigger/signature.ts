import { createHmac, timingSafeEqual } from 'crypto';

/**
 * Verification of `X-Service-Signature`: `sha256=` followed by the lowercase hexadecimal
 * HMAC-SHA256 of the raw request body, computed with the webhook's signing secret.
 *
 * The check runs on the bytes as received. Re-serialising the parsed JSON would change
 * spacing, key order, escapes and large numbers, so it is never done.
 */

/** Exactly `sha256=` + 64 lowercase hex digits; anything else is malformed. */
const SIGNATURE_FORMAT = /^sha256=([0-9a-f]{64})$/;

export type SignatureProblem =
	'missingSecret' | 'missingBody' | 'missingSignature' | 'malformedSignature' | 'mismatch';

export interface SignatureCheck {
	valid: boolean;
	problem?: SignatureProblem;
}

export function verifySignature(
	rawBody: unknown,
	signatureHeader: unknown,
	secret: unknown,
): SignatureCheck {
	if (typeof secret !== 'string' || secret === '')
		return { valid: false, problem: 'missingSecret' };
	if (!Buffer.isBuffer(rawBody)) return { valid: false, problem: 'missingBody' };
	if ((signatureHeader ?? '') === '') return { valid: false, problem: 'missingSignature' };
	// A repeated header (an array) is malformed too.
	const match = typeof signatureHeader === 'string' && SIGNATURE_FORMAT.exec(signatureHeader);
	if (!match) return { valid: false, problem: 'malformedSignature' };

	const expected = createHmac('sha256', secret).update(rawBody).digest();
	const received = Buffer.from(match[1], 'hex');
	// Both are 32 bytes (the format allows only 64 hex digits), as timingSafeEqual requires.
	return timingSafeEqual(received, expected)
		? { valid: true }
		: { valid: false, problem: 'mismatch' };
}

/** Wording for the 401 answer; it names the problem, never the secret or the expected value. */
export function describeProblem(problem: SignatureProblem | undefined): string {
	switch (problem) {
		case 'missingSecret':
			return 'This trigger holds no signing secret for its webhook; deactivate and activate the workflow again';
		case 'missingBody':
			return 'The raw request body is not available, so the signature cannot be verified';
		case 'missingSignature':
			return 'The X-Service-Signature header is missing';
		case 'malformedSignature':
			return 'The X-Service-Signature header is not of the form sha256=<64 lowercase hex digits>';
		default:
			return 'The X-Service-Signature header does not match the request body';
	}
}
