/**
 * File names as the service may have stored them: without the folder part, percent-encoded as
 * multipart senders do (`"` → `%22`), in another Unicode normal form, or UTF-8 read as Latin-1
 * (`Müller` → `MÃ¼ller`). Two names are the same when they agree after undoing all of that.
 */

function basename(name: string): string {
	return name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
}

function percentDecoded(name: string): string {
	if (!/%[0-9a-f]{2}/i.test(name)) return name;
	try {
		return decodeURIComponent(name);
	} catch {
		// Not a valid escape sequence: only the quote and line breaks multipart senders encode.
		return name.replace(/%22/gi, '"').replace(/%0d/gi, '\r').replace(/%0a/gi, '\n');
	}
}

/**
 * Whether every UTF-16 code unit of `name` is at most U+00FF and one at least U+0080: a UTF-8
 * name read as Latin-1. A loop, as n8n's lint forbids control characters in regular expressions.
 */
function looksLatin1Decoded(name: string): boolean {
	let above7Bit = false;
	for (let index = 0; index < name.length; index++) {
		const unit = name.charCodeAt(index);
		if (unit > 0xff) return false;
		if (unit >= 0x80) above7Bit = true;
	}
	return above7Bit;
}

/** UTF-8 bytes that were read as Latin-1, read again as UTF-8; undefined when that is not what happened. */
export function latin1Repaired(name: string): string | undefined {
	if (!looksLatin1Decoded(name)) return undefined;
	const bytes = Uint8Array.from(name, (char) => char.charCodeAt(0));
	try {
		const repaired = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
		return repaired === name ? undefined : repaired;
	} catch {
		return undefined;
	}
}

/**
 * The comparable form of a file name: folder part removed, escapes undone, NFC. NFC comes
 * first as well: in another normal form `%0é` (`%0e` + U+0301) would look like the escape `%0e`.
 */
export function normalizedFileName(name: string): string {
	return percentDecoded(basename(name.trim()).normalize('NFC')).normalize('NFC').trim();
}

/** Whether `stored` (a scan's `filename`) may be the service's copy of the name `sent`. */
export function sameFileName(stored: unknown, sent: string): boolean {
	if (typeof stored !== 'string' || stored === '') return false;
	const wanted = normalizedFileName(sent);
	if (normalizedFileName(stored) === wanted) return true;
	const repaired = latin1Repaired(stored);
	return repaired !== undefined && normalizedFileName(repaired) === wanted;
}
