import { randomBytes } from 'crypto';

import type { StreamBody } from '../../shared/transport/streamBody';

/** A readable source of bytes: a stream from n8n's binary store (Node's `Readable`). */
export interface ByteSource extends AsyncIterable<unknown> {
	destroy?(): unknown;
}

export interface MultipartFile {
	/** Form field name of the file part. */
	field: string;
	fileName: string;
	mimeType: string;
	/** Exact size of the file in bytes. */
	size: number;
	/** A fresh stream of the file's bytes, or the bytes themselves (in-memory binary mode). */
	open(): Promise<ByteSource | Buffer>;
}

/** Field names and file names as a browser's FormData writes them (WHATWG: %22, %0A, %0D). */
function escapeQuoted(value: string): string {
	return value.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22');
}

function normalizeLinefeeds(value: string): string {
	return value.replace(/\r?\n|\r/g, '\r\n');
}

/**
 * A `multipart/form-data` body (Node's FormData wire format) of text fields and one file,
 * streamed: preamble, the file's own stream (never copied into the body), trailer.
 */
export function multipartBody(
	fields: Record<string, string>,
	file: MultipartFile,
	boundary = `----n8nDocumentScanning${randomBytes(12).toString('hex')}`,
): StreamBody {
	const parts: string[] = [];
	for (const [name, value] of Object.entries(fields)) {
		parts.push(
			`--${boundary}\r\nContent-Disposition: form-data; name="${escapeQuoted(normalizeLinefeeds(name))}"\r\n\r\n${normalizeLinefeeds(value)}\r\n`,
		);
	}
	parts.push(
		`--${boundary}\r\nContent-Disposition: form-data; name="${escapeQuoted(normalizeLinefeeds(file.field))}"; filename="${escapeQuoted(file.fileName)}"\r\n` +
			`Content-Type: ${file.mimeType || 'application/octet-stream'}\r\n\r\n`,
	);
	const preamble = Buffer.from(parts.join(''), 'utf8');
	const trailer = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
	const contentType = `multipart/form-data; boundary=${boundary}`;
	const contentLength = preamble.length + file.size + trailer.length;
	return {
		contentType,
		contentLength,
		// The file is opened when the body is first read, and closed when it ends or fails.
		open: async () => ({
			[Symbol.toStringTag]: 'Blob' as const,
			type: contentType,
			size: contentLength,
			stream: () => chunks(preamble, file, trailer),
		}),
	};
}

/** Preamble, content, trailer; a content of another size than announced fails the request. */
async function* chunks(
	preamble: Buffer,
	file: MultipartFile,
	trailer: Buffer,
): AsyncGenerator<Buffer> {
	yield preamble;
	const size = file.size;
	const content = await file.open();
	let sent = 0;
	if (Buffer.isBuffer(content)) {
		sent = content.length;
		if (sent === size) yield content;
	} else {
		try {
			for await (const chunk of content) {
				const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
				sent += bytes.length;
				if (sent > size) break;
				yield bytes;
			}
		} finally {
			content.destroy?.();
		}
	}
	if (sent !== size)
		throw new Error(`the file changed while it was uploaded (${sent} bytes instead of ${size})`);
	yield trailer;
}
