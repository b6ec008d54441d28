import { createHash } from 'crypto';

import type { ByteSource } from './multipartBody';

/** Bytes read to recognise the file type (magic bytes). */
export const HEAD_BYTES = 8;

export interface StreamDigest {
	/** SHA-256 of the bytes (hex). */
	sha256: string;
	size: number;
	/** The first `HEAD_BYTES` bytes (fewer for a shorter file). */
	head: Buffer;
}

/** SHA-256, size and head of a stream, read chunk by chunk: the file is never held whole. */
export async function digestStream(stream: ByteSource): Promise<StreamDigest> {
	const hash = createHash('sha256');
	let size = 0;
	let head = Buffer.alloc(0);
	try {
		for await (const chunk of stream) {
			const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
			hash.update(bytes);
			size += bytes.length;
			if (head.length < HEAD_BYTES)
				head = Buffer.concat([head, bytes.subarray(0, HEAD_BYTES - head.length)]);
		}
	} finally {
		stream.destroy?.();
	}
	return { sha256: hash.digest('hex'), size, head };
}

/** The first `HEAD_BYTES` bytes of a stream; the rest is not read. */
export async function headOfStream(stream: ByteSource): Promise<Buffer> {
	let head = Buffer.alloc(0);
	try {
		for await (const chunk of stream) {
			const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
			head = Buffer.concat([head, bytes.subarray(0, HEAD_BYTES - head.length)]);
			if (head.length >= HEAD_BYTES) break;
		}
	} finally {
		stream.destroy?.();
	}
	return head;
}

/** SHA-256 of bytes already in memory. */
export function digestBuffer(buffer: Buffer): StreamDigest {
	return {
		sha256: createHash('sha256').update(buffer).digest('hex'),
		size: buffer.length,
		head: buffer.subarray(0, HEAD_BYTES),
	};
}
