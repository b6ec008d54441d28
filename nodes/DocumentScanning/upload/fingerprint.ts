/**
 * The content fingerprint in an uploaded file's name: `Invoice.pdf` is sent as
 * `Invoice.ds-1a2b3c4d5e6f.pdf` (the first 12 hex digits of its SHA-256). A later 409 for the
 * same bytes leads to the one scan whose name carries it: proof that the scan holds these bytes
 * (a different file matches with probability 2^-48 per scan). The marker is ASCII, so it
 * survives whatever a service does to a stored name.
 */
import { FINGERPRINT_LENGTH, FINGERPRINT_PATTERN as PATTERN } from '../../shared/scans/fileName';
import { normalizedFileName } from './fileNames';

/** Longest file name the node sends: the user's part is shortened to fit, never the marker or the extension. */
export const MAX_SENT_NAME_LENGTH = 255;

const MARKER = '.ds-';

/** The fingerprint of a file from its SHA-256 (hex). */
export function fingerprintOf(sha256: string): string {
	return sha256.slice(0, FINGERPRINT_LENGTH).toLowerCase();
}

/** A file type extension (`.pdf`, `.JPEG`): letters and digits only, so nothing a service decodes. */
const EXTENSION = /\.[A-Za-z0-9]{1,10}$/;

/** The fingerprint a (stored or sent) file name carries, lower case; undefined without one. */
export function fingerprintIn(name: unknown): string | undefined {
	if (typeof name !== 'string') return undefined;
	const match = PATTERN.exec(normalizedFileName(name));
	return match ? match[1].toLowerCase() : undefined;
}

/** The name (normalized) without its fingerprint marker: the name the user gave. */
export function withoutFingerprint(name: string): string {
	return normalizedFileName(name).replace(PATTERN, '').trim();
}

/**
 * The name to upload: the user's with the fingerprint before the extension (or at the end), kept
 * as it is when it carries this very fingerprint; beyond `MAX_SENT_NAME_LENGTH` the user's part
 * loses characters at its end. `fingerprintIn` always reads the fingerprint back.
 */
export function withFingerprint(name: string, sha256: string): string {
	const fingerprint = fingerprintOf(sha256);
	if (fingerprintIn(name) === fingerprint && name.length <= MAX_SENT_NAME_LENGTH) return name;
	const extension = EXTENSION.exec(name)?.[0] ?? '';
	const stem = name.slice(0, name.length - extension.length);
	const tail = `${MARKER}${fingerprint}${extension}`;
	const room = Math.max(0, MAX_SENT_NAME_LENGTH - tail.length);
	// Cut by code points, never inside a surrogate pair.
	let short = '';
	for (const char of stem) {
		if (short.length + char.length > room) break;
		short += char;
	}
	return `${short}${tail}`;
}
