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
