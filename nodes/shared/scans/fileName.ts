import type { IDataObject } from 'n8n-workflow';

/**
 * The content fingerprint in an uploaded file's name (upload/fingerprint.ts), and the name the
 * user gave, which every item that carries a scan shows as `original_filename`.
 */

/** Hex digits of the SHA-256 kept in the name: 48 bits. */
export const FINGERPRINT_LENGTH = 12;
/** The `.ds-<12 hex>` that ends the name or stands right before its extension (letters and digits). */
export const FINGERPRINT_PATTERN = new RegExp(
	`\\.ds-([0-9a-fA-F]{${FINGERPRINT_LENGTH}})(?=(\\.[A-Za-z0-9]{1,10})?$)`,
);

/** The name the user gave: the stored name without the fingerprint. */
export function originalFileName(stored: string): string {
	return stored.replace(FINGERPRINT_PATTERN, '');
}

/** The scan with `original_filename` (its stored name without the fingerprint) after `filename`. */
export function withOriginalName(scan: IDataObject): IDataObject {
	if (typeof scan.filename !== 'string') return scan;
	const named: IDataObject = {};
	for (const [key, value] of Object.entries(scan)) {
		if (key === 'original_filename') continue;
		named[key] = value;
		if (key === 'filename') named.original_filename = originalFileName(scan.filename);
	}
	return named;
}
