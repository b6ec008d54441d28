/**
 * The streamed multipart body (nodes/DocumentScanning/upload/multipartBody.ts) and the streamed digest
 * (upload/fileDigest.ts), property-based over odd names and arbitrary chunking:
 * - byte for byte what Node's native FormData writes with the same boundary;
 * - read back by the sandbox's parser (busboy) as the same field, file name and bytes;
 * - Content-Length is the exact body length; every `open()` gives the whole body again;
 * - a file that yields other bytes than announced fails the body instead of sending it short.
 */
import { createHash } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';

import fc from 'fast-check';

import { digestStream, headOfStream } from '../../nodes/DocumentScanning/upload/fileDigest';
import { multipartBody } from '../../nodes/DocumentScanning/upload/multipartBody';
import { parseMultipart } from '../../sandbox/api/multipart';

const RUNS = { seed: 16_04, numRuns: 60 };

/** Reads a body the way axios reads a Blob: `stream()`, chunk by chunk. */
async function bytesOf(blob: { stream(): AsyncIterable<Buffer> }): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of blob.stream()) chunks.push(chunk);
	return Buffer.concat(chunks);
}

/** `bytes` cut at the given points, as a stream. */
function chunked(bytes: Buffer, cuts: number[]): Readable {
	const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
	const pieces: Buffer[] = [];
	let from = 0;
	for (const point of [...points, bytes.length]) {
		if (point > from) pieces.push(bytes.subarray(from, point));
		from = Math.max(from, point);
	}
	return Readable.from(pieces);
}

async function nativeBody(
	fields: Record<string, string>,
	fileName: string,
	mimeType: string,
	bytes: Buffer,
) {
	const form = new FormData();
	for (const [name, value] of Object.entries(fields)) form.append(name, value);
	form.append('file', new Blob([bytes], { type: mimeType }), fileName);
	const response = new Response(form);
	const contentType = response.headers.get('content-type') ?? '';
	return {
		contentType,
		bytes: Buffer.from(await response.arrayBuffer()),
		boundary: /boundary=(.*)$/.exec(contentType)?.[1] ?? '',
	};
}

const fileNameArb = fc.oneof(
	fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
	fc.constantFrom(
		'scan.pdf',
		'a "quoted" name.pdf',
		'line\nbreak.pdf',
		'cr\rlf\r\n.pdf',
		'Rechnung März – 2024.pdf',
		'発注書.pdf',
		'../x/y.pdf',
		'%22.pdf',
	),
);
const bytesArb = fc.uint8Array({ maxLength: 4096 }).map((array) => Buffer.from(array));
const cutsArb = fc.array(fc.nat(), { maxLength: 12 });

test('the streamed body is byte for byte what native FormData writes, whatever the chunking', async () => {
	await fc.assert(
		fc.asyncProperty(
			fileNameArb,
			bytesArb,
			cutsArb,
			fc.constantFrom('application/pdf', 'image/png', ''),
			async (fileName, bytes, cuts, mimeType) => {
				const native = await nativeBody({ template_id: '7' }, fileName, mimeType, bytes);
				const body = multipartBody(
					{ template_id: '7' },
					{
						field: 'file',
						fileName,
						mimeType,
						size: bytes.length,
						open: async () => chunked(bytes, cuts),
					},
					native.boundary,
				);
				const ours = await bytesOf(await body.open());
				expect(body.contentType).toBe(native.contentType);
				expect(ours.equals(native.bytes)).toBe(true);
				expect(body.contentLength).toBe(ours.length);
			},
		),
		RUNS,
	);
});

test('the sandbox reads back the same field, file name and bytes; a second open gives the whole body again', async () => {
	await fc.assert(
		fc.asyncProperty(fileNameArb, bytesArb, cutsArb, async (fileName, bytes, cuts) => {
			let opens = 0;
			const body = multipartBody(
				{ template_id: '12' },
				{
					field: 'file',
					fileName,
					mimeType: 'application/pdf',
					size: bytes.length,
					open: async () => (opens++, chunked(bytes, cuts)),
				},
			);
			const first = await bytesOf(await body.open());
			const second = await bytesOf(await body.open());
			expect(opens).toBe(2);
			expect(second.equals(first)).toBe(true);
			const request = Object.assign(new PassThrough(), {
				headers: { 'content-type': body.contentType, 'content-length': String(body.contentLength) },
			});
			request.end(first);
			const parsed = await parseMultipart(request as never, {
				fileFields: ['file'],
				maxFileBytes: 1 << 20,
			});
			expect(parsed.fields.template_id).toBe('12');
			expect(parsed.files.file.data.equals(bytes)).toBe(true);
			// Names come back as the browser encoding leaves them (quotes and line breaks escaped).
			expect(parsed.files.file.filename).toBe(
				fileName.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22'),
			);
		}),
		RUNS,
	);
});

test('the file is opened only when the body is read, and an in-memory Buffer is sent as it is', async () => {
	let opens = 0;
	const bytes = Buffer.from('%PDF-1.4 in memory');
	const body = multipartBody(
		{},
		{
			field: 'file',
			fileName: 'm.pdf',
			mimeType: 'application/pdf',
			size: bytes.length,
			open: async () => (opens++, bytes),
		},
	);
	const stream = await body.open();
	// axios (n8n's HTTP client) sends an object tagged Blob by reading its stream().
	expect(Object.prototype.toString.call(stream)).toBe('[object Blob]');
	expect([stream.type, stream.size]).toEqual([body.contentType, body.contentLength]);
	expect(opens).toBe(0);
	const sent = await bytesOf(stream);
	expect(opens).toBe(1);
	expect(sent.includes(bytes)).toBe(true);
	expect(sent.length).toBe(body.contentLength);
});

test.each([
	['shorter', Buffer.from('%PDF-1.4 short')],
	['longer', Buffer.from('%PDF-1.4 a good deal longer than announced')],
])(
	'a file that turns out %s than its size fails the body instead of sending it cut or padded',
	async (_kind, bytes) => {
		const body = multipartBody(
			{},
			{
				field: 'file',
				fileName: 'x.pdf',
				mimeType: 'application/pdf',
				size: 20,
				open: async () => chunked(bytes, [3, 9]),
			},
		);
		await expect(bytesOf(await body.open())).rejects.toThrow(
			/the file changed while it was uploaded \(\d+ bytes instead of 20\)/,
		);
	},
);

test('the streamed SHA-256, size and head equal those of the whole bytes, whatever the chunking', async () => {
	await fc.assert(
		fc.asyncProperty(bytesArb, cutsArb, async (bytes, cuts) => {
			const digest = await digestStream(chunked(bytes, cuts));
			expect(digest.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
			expect(digest.size).toBe(bytes.length);
			expect(digest.head.equals(bytes.subarray(0, 8))).toBe(true);
			expect((await headOfStream(chunked(bytes, cuts))).equals(bytes.subarray(0, 8))).toBe(true);
		}),
		RUNS,
	);
});
