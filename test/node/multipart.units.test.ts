/**
 * Unit tests of the streamed upload body and the file digest (upload/multipartBody.ts,
 * fileDigest.ts): in-memory bytes of the wrong size, the default type, string chunks, and that
 * every stream opened is closed.
 */
import { createHash } from 'node:crypto';

import {
	digestBuffer,
	digestStream,
	HEAD_BYTES,
	headOfStream,
} from '../../nodes/DocumentScanning/upload/fileDigest';
import type { ByteSource } from '../../nodes/DocumentScanning/upload/multipartBody';
import { multipartBody } from '../../nodes/DocumentScanning/upload/multipartBody';

/** A stream of the given chunks that records how far it was read and whether it was closed. */
function source(chunks: Array<string | Buffer>) {
	const state = { read: 0, destroyed: 0 };
	const stream: ByteSource = {
		async *[Symbol.asyncIterator]() {
			for (const chunk of chunks) {
				state.read++;
				yield chunk;
			}
		},
		destroy: () => {
			state.destroyed++;
		},
	};
	return { stream, state };
}

async function text(body: ReturnType<typeof multipartBody>): Promise<string> {
	const blob = await body.open();
	const parts: Buffer[] = [];
	for await (const chunk of blob.stream()) parts.push(chunk);
	return Buffer.concat(parts).toString('utf8');
}

const file = (open: () => Promise<ByteSource | Buffer>, size: number, extra = {}) => ({
	field: 'file',
	fileName: 'a.pdf',
	mimeType: 'application/pdf',
	size,
	open,
	...extra,
});

test('the whole body, byte for byte, with escaped names and CRLF line ends in fields', async () => {
	const body = multipartBody(
		{ 'na\nme"': 'one\ntwo\rthree' },
		file(async () => Buffer.from('PDF'), 3, { fileName: 'q"\r\n.pdf', mimeType: '' }),
		'B',
	);
	const expected =
		'--B\r\nContent-Disposition: form-data; name="na%0D%0Ame%22"\r\n\r\none\r\ntwo\r\nthree\r\n' +
		'--B\r\nContent-Disposition: form-data; name="file"; filename="q%22%0D%0A.pdf"\r\n' +
		'Content-Type: application/octet-stream\r\n\r\nPDF\r\n--B--\r\n';
	expect(await text(body)).toBe(expected);
	expect(body.contentType).toBe('multipart/form-data; boundary=B');
	expect(body.contentLength).toBe(Buffer.byteLength(expected));
});

test('a fresh random boundary per body', () => {
	const a = multipartBody(
		{},
		file(async () => Buffer.alloc(0), 0),
	).contentType;
	const b = multipartBody(
		{},
		file(async () => Buffer.alloc(0), 0),
	).contentType;
	expect(a).toMatch(/^multipart\/form-data; boundary=----n8nDocumentScanning[0-9a-f]{24}$/);
	expect(a).not.toBe(b);
});

test.each([2, 4])(
	'in-memory bytes of another size (%s) than announced fail the body',
	async (size) => {
		const body = multipartBody(
			{},
			file(async () => Buffer.from('PDF'), size),
		);
		await expect(text(body)).rejects.toThrow(
			`the file changed while it was uploaded (3 bytes instead of ${size})`,
		);
	},
);

test('string chunks are sent as bytes, and the stream is closed at the end', async () => {
	const { stream, state } = source(['PD', Buffer.from('F')]);
	const body = multipartBody(
		{},
		file(async () => stream, 3),
		'B',
	);
	expect(await text(body)).toContain('\r\n\r\nPDF\r\n--B--');
	expect(state.destroyed).toBe(1);
});

test('a longer stream stops being read at the first chunk past the size, and is closed', async () => {
	const { stream, state } = source(['PD', 'F', 'XX', 'YY', 'ZZ']);
	const body = multipartBody(
		{},
		file(async () => stream, 3),
	);
	await expect(text(body)).rejects.toThrow('(5 bytes instead of 3)');
	expect(state.read).toBe(3);
	expect(state.destroyed).toBe(1);
});

test('digestStream: SHA-256, size and head of string and Buffer chunks; the stream is closed', async () => {
	const { stream, state } = source(['%PD', Buffer.from('F-1.4 rest of it')]);
	const digest = await digestStream(stream);
	const whole = Buffer.from('%PDF-1.4 rest of it');
	expect(digest).toEqual({
		sha256: createHash('sha256').update(whole).digest('hex'),
		size: whole.length,
		head: whole.subarray(0, HEAD_BYTES),
	});
	expect(HEAD_BYTES).toBe(8);
	expect(state.destroyed).toBe(1);
	const short = await digestStream(source(['abc']).stream);
	expect(short.head.toString()).toBe('abc');
});

test('headOfStream reads only as far as the head, and closes the stream', async () => {
	const { stream, state } = source(['%PDF', '-1.4', ' more', ' and more']);
	expect((await headOfStream(stream)).toString()).toBe('%PDF-1.4');
	expect(state.read).toBe(2);
	expect(state.destroyed).toBe(1);
	const short = source(['ab', 'c']);
	expect((await headOfStream(short.stream)).toString()).toBe('abc');
	const long = source(['%PDF-1.4 in one chunk']);
	expect((await headOfStream(long.stream)).toString()).toBe('%PDF-1.4');
});

test('digestBuffer', () => {
	const bytes = Buffer.from('%PDF-1.4 in memory');
	expect(digestBuffer(bytes)).toEqual({
		sha256: createHash('sha256').update(bytes).digest('hex'),
		size: bytes.length,
		head: bytes.subarray(0, 8),
	});
});
