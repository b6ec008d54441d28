/**
 * The raw request bytes the signature covers. n8n's webhook server keeps them as
 * `req.rawBody`; where it has not read them yet, newer n8n offers `req.readRawBody()` (as
 * n8n's own Trello and Webhook nodes use it). The parsed `req.body` is never re-serialised.
 */

interface RequestWithRawBody {
	rawBody?: unknown;
	readRawBody?: unknown;
}

export async function rawBodyOf(request: RequestWithRawBody): Promise<Buffer | undefined> {
	if (!Buffer.isBuffer(request.rawBody) && typeof request.readRawBody === 'function') {
		try {
			await (request.readRawBody as () => Promise<void>).call(request);
		} catch {
			// A body that cannot be read is treated like a missing one: 401, nothing starts.
			return undefined;
		}
	}
	return Buffer.isBuffer(request.rawBody) ? request.rawBody : undefined;
}

/**
 * The text of the signed bytes, without a leading UTF-8 byte order mark (EF BB BF): RFC 8259
 * §8.1 lets a parser ignore it. The signature is checked over the bytes as sent, BOM included;
 * only the parsing skips it.
 */
export function bodyText(rawBody: Buffer): string {
	const text = rawBody.toString('utf8');
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
