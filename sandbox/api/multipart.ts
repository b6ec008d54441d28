/** multipart/form-data parsing with busboy; file parts are buffered only up to a size limit. */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';

export interface UploadedFile {
	filename: string;
	mimeType: string;
	/** At most `maxFileBytes` + 1 bytes. */
	data: Buffer;
	/** True when the part was larger than `maxFileBytes` (the rest was discarded). */
	truncated: boolean;
}

export interface MultipartBody {
	/** Text fields (first value wins). */
	fields: Record<string, string>;
	/** First file part per buffered field name. */
	files: Record<string, UploadedFile>;
}

export class MultipartError extends Error {}

export interface MultipartOptions {
	/** Field names whose file parts are buffered; other file parts are discarded. */
	fileFields: readonly string[];
	maxFileBytes: number;
}

export function isMultipart(req: IncomingMessage): boolean {
	return /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '');
}

/**
 * Parses the request body. Always consumes the whole request before settling, so that the caller
 * can answer on an idle connection; never holds more than `maxFileBytes` per buffered file.
 */
export function parseMultipart(
	req: IncomingMessage,
	options: MultipartOptions,
): Promise<MultipartBody> {
	return new Promise((resolve, reject) => {
		let parser: busboy.Busboy;
		try {
			parser = busboy({
				headers: req.headers,
				// File names arrive as UTF-8 bytes (what browsers and undici send), not Latin-1.
				defParamCharset: 'utf8',
				// Keep any folder part: the storedFilename option decides what the service keeps.
				preservePath: true,
				// busboy flags a file as truncated once it reaches the limit, so allow one byte more than the maximum.
				limits: {
					fileSize: options.maxFileBytes + 1,
					fields: 50,
					parts: 100,
					fieldSize: 64 * 1024,
				},
			});
		} catch (err) {
			req.resume();
			reject(new MultipartError((err as Error).message));
			return;
		}

		const body: MultipartBody = { fields: {}, files: {} };
		const fileChunks = new Map<string, Buffer[]>();
		let failure: Error | undefined;

		parser.on('field', (name, value) => {
			if (!(name in body.fields)) body.fields[name] = value;
		});

		parser.on('file', (name, stream, info) => {
			if (!options.fileFields.includes(name) || name in body.files) {
				stream.resume();
				return;
			}
			const chunks: Buffer[] = [];
			fileChunks.set(name, chunks);
			const file: UploadedFile = {
				filename: info.filename ?? '',
				mimeType: info.mimeType,
				data: Buffer.alloc(0),
				truncated: false,
			};
			body.files[name] = file;
			stream.on('data', (chunk: Buffer) => chunks.push(chunk));
			stream.on('limit', () => {
				file.truncated = true;
			});
		});

		const fail = (err: Error): void => {
			if (failure) return;
			failure = err;
			req.unpipe(parser);
			if (req.readableEnded) reject(failure);
			else {
				req.on('end', () => reject(failure));
				req.resume();
			}
		};
		parser.on('error', (err: Error) => fail(new MultipartError(err.message)));
		parser.on('close', () => {
			if (failure) return;
			for (const [name, chunks] of fileChunks) body.files[name].data = Buffer.concat(chunks);
			resolve(body);
		});
		req.on('error', (err) => {
			failure = failure ?? err;
			reject(err); // the client went away: nothing left to drain
		});
		req.pipe(parser);
	});
}
