import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { binaryEntryProblem, MALFORMED_ENTRY_HELP } from './binaryEntry';
import type { StreamDigest } from './fileDigest';
import type { ByteSource } from './multipartBody';
import { digestBuffer, digestStream, headOfStream } from './fileDigest';

/** Upload limit of POST /scans: 20 MB (20 × 1024 × 1024 bytes, inclusive). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

type FileKind = 'pdf' | 'jpeg' | 'png';

const KINDS: Record<FileKind, { label: string; extensions: string[]; mimeTypes: string[] }> = {
	pdf: { label: 'PDF', extensions: ['pdf'], mimeTypes: ['application/pdf', 'application/x-pdf'] },
	jpeg: {
		label: 'JPEG',
		extensions: ['jpg', 'jpeg'],
		mimeTypes: ['image/jpeg', 'image/jpg', 'image/pjpeg'],
	},
	png: { label: 'PNG', extensions: ['png'], mimeTypes: ['image/png', 'image/x-png'] },
};

/** MIME types that say nothing about the content; the file name and the bytes decide then. */
const GENERIC_MIME_TYPES = new Set([
	'',
	'application/octet-stream',
	'binary/octet-stream',
	'application/binary',
]);

const ACCEPTED = 'PDF, JPG, JPEG or PNG';

export interface UploadFile {
	fileName: string;
	size: number;
	mimeType: string;
	/** SHA-256 of the bytes (hex): the same file, whatever its name. */
	sha256: string;
	/**
	 * The bytes to send, opened afresh for every attempt: a stream from n8n's binary store
	 * (filesystem, S3, database modes), or the one in-memory copy (in-memory mode).
	 */
	open(): Promise<ByteSource | Buffer>;
}

/** What was read of the bytes: the head always, the digest when the whole file was read. */
interface Content {
	head: Buffer;
	size: number;
	digest?: StreamDigest;
	open(): Promise<ByteSource | Buffer>;
}

function kindFromMagic(head: Uint8Array): FileKind | undefined {
	if (
		head.length >= 4 &&
		head[0] === 0x25 &&
		head[1] === 0x50 &&
		head[2] === 0x44 &&
		head[3] === 0x46
	)
		return 'pdf';
	if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
	if (
		head.length >= 4 &&
		head[0] === 0x89 &&
		head[1] === 0x50 &&
		head[2] === 0x4e &&
		head[3] === 0x47
	)
		return 'png';
	return undefined;
}

function extensionOf(fileName: string): string {
	const match = /\.([^./\\]+)$/.exec(fileName.trim());
	return match ? match[1].toLowerCase() : '';
}

function kindFromExtension(extension: string): FileKind | undefined {
	return (Object.keys(KINDS) as FileKind[]).find((kind) =>
		KINDS[kind].extensions.includes(extension),
	);
}

function kindFromMime(mimeType: string): FileKind | 'generic' | undefined {
	const bare = mimeType.split(';')[0].trim().toLowerCase();
	if (GENERIC_MIME_TYPES.has(bare)) return 'generic';
	return (Object.keys(KINDS) as FileKind[]).find((kind) => KINDS[kind].mimeTypes.includes(bare));
}

function megabytes(bytes: number): string {
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Decoded size of base64 data without decoding it. */
function base64Size(data: string): number {
	const length = data.length;
	if (length === 0) return 0;
	const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
	return Math.floor((length * 3) / 4) - padding;
}

/**
 * Reads the file to upload from the input item's binary property and checks it locally,
 * before any request is made: present, non-empty, at most 20 MB, and a PDF, JPG/JPEG or
 * PNG by MIME type, file name extension and content (magic bytes), all three agreeing.
 *
 * The size is taken from the binary metadata first (n8n's filesystem/S3 binary modes) or
 * from the base64 length (in-memory mode), so an oversized file is refused without being
 * read; the bytes are read once through n8n's binary helpers.
 */
export async function readUploadFile(
	this: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
): Promise<UploadFile> {
	const { content, fileName, mimeType } = await readCheckedFile.call(
		this,
		itemIndex,
		propertyName,
		true,
	);
	const digest = content.digest as StreamDigest;
	return { fileName, size: digest.size, mimeType, sha256: digest.sha256, open: content.open };
}

/**
 * The local checks of `readUploadFile` alone: a stored file is checked from its metadata and
 * its first bytes; no upload copy of the bytes, no digest.
 */
export async function checkUploadFile(
	this: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
): Promise<void> {
	await readCheckedFile.call(this, itemIndex, propertyName, false);
}

/**
 * The bytes of the file: from n8n's binary store as a stream (read whole only to digest
 * them, chunk by chunk), or in memory (in-memory mode) as the one copy kept for the upload.
 */
async function readContent(
	this: IExecuteFunctions,
	itemIndex: number,
	property: string,
	binary: IBinaryData,
	knownSize: number | undefined,
	full: boolean,
): Promise<Content> {
	if (binary.id) {
		const id = binary.id;
		const open = async () => await this.helpers.getBinaryStream(id);
		if (!full && knownSize !== undefined)
			return { head: await headOfStream(await open()), size: knownSize, open };
		const digest = await digestStream(await open());
		return { head: digest.head, size: digest.size, digest, open };
	}
	const buffer = await this.helpers.getBinaryDataBuffer(itemIndex, property);
	if (!full) return { head: buffer.subarray(0, 8), size: buffer.length, open: async () => buffer };
	const digest = digestBuffer(buffer);
	return { head: digest.head, size: digest.size, digest, open: async () => buffer };
}

async function readCheckedFile(
	this: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
	full: boolean,
): Promise<{ content: Content; fileName: string; mimeType: string }> {
	const property = typeof propertyName === 'string' ? propertyName.trim() : '';
	const fail = (message: string, description: string) =>
		new NodeOperationError(this.getNode(), `Item ${itemIndex}: ${message}`, {
			itemIndex,
			description: `${description} Nothing was uploaded for this item and no scan credit was used.`,
		});

	if (property === '') {
		throw fail(
			'the field "Input Binary Field" is empty',
			'Enter the name of the binary property that holds the file, e.g. "data".',
		);
	}

	let binary: IBinaryData;
	try {
		binary = this.helpers.assertBinaryData(itemIndex, property);
	} catch {
		const available = Object.keys(this.getInputData()[itemIndex]?.binary ?? {});
		throw fail(
			`the binary property "${property}" (field "Input Binary Field") does not exist on the input item`,
			available.length > 0
				? `The item has these binary properties: ${available.map((name) => `"${name}"`).join(', ')}. Set "Input Binary Field" to the one holding the document.`
				: 'The item has no binary data. Add a node before this one that reads or downloads the file (e.g. Read/Write Files from Disk or HTTP Request).',
		);
	}

	const problem = binaryEntryProblem(binary);
	if (problem) {
		throw fail(
			`the binary property "${property}" (field "Input Binary Field") is malformed: ${problem}`,
			MALFORMED_ENTRY_HELP,
		);
	}

	const subject = `the file${binary.fileName ? ` "${binary.fileName}"` : ''} in binary property "${property}"`;
	const fileName = (binary.fileName ?? '').trim();
	const extension = fileName ? extensionOf(fileName) : (binary.fileExtension ?? '').toLowerCase();
	const extensionKind = extension ? kindFromExtension(extension) : undefined;
	if (extension && !extensionKind) {
		throw fail(
			`${subject} is not a ${ACCEPTED} file (file name extension ".${extension}")`,
			`The service accepts ${ACCEPTED} files only. Convert the document first, or pick another binary property.`,
		);
	}
	const mimeType = binary.mimeType ?? '';
	const mimeKind = kindFromMime(mimeType);
	if (!mimeKind) {
		throw fail(
			`${subject} is not a ${ACCEPTED} file (MIME type "${mimeType}")`,
			`The service accepts ${ACCEPTED} files only. Convert the document first, or pick another binary property.`,
		);
	}

	const tooLarge = (size: number) =>
		fail(
			`${subject} is too large: ${megabytes(size)} (${size} bytes); the limit is 20 MB (${MAX_UPLOAD_BYTES} bytes)`,
			'The service refuses files over 20 MB. Reduce the resolution or split the document before uploading.',
		);
	const empty = () =>
		fail(
			`${subject} is empty (0 bytes)`,
			'The file has no content. Check the node that produced it.',
		);

	// Size before reading: metadata of stored binary data, or the length of inline base64.
	let knownSize: number | undefined;
	if (binary.id) {
		try {
			knownSize = Number((await this.helpers.getBinaryMetadata(binary.id)).fileSize);
		} catch {
			knownSize = undefined;
		}
	} else if (typeof binary.data === 'string') {
		knownSize = base64Size(binary.data);
	}
	if (knownSize !== undefined && !Number.isFinite(knownSize)) knownSize = undefined;
	if (knownSize !== undefined) {
		if (knownSize > MAX_UPLOAD_BYTES) throw tooLarge(knownSize);
		if (knownSize === 0 && !binary.id) throw empty();
	}

	const content = await readContent.call(this, itemIndex, property, binary, knownSize, full);
	if (content.size === 0 || content.head.length === 0) throw empty();
	if (content.size > MAX_UPLOAD_BYTES) throw tooLarge(content.size);

	const contentKind = kindFromMagic(content.head);
	if (!contentKind) {
		throw fail(
			`${subject} is not a ${ACCEPTED} file: its content does not start with a PDF ("%PDF"), JPEG (FF D8 FF) or PNG (89 50 4E 47) signature`,
			`The service checks the content, not only the name. Make sure the binary property holds the document itself (not, e.g., an HTML error page or a ZIP archive).`,
		);
	}
	if (extensionKind && extensionKind !== contentKind) {
		throw fail(
			`${subject} has the extension ".${extension}" but its content is ${KINDS[contentKind].label}`,
			`The file name extension and the content must agree. Rename the file to end in .${KINDS[contentKind].extensions[0]}.`,
		);
	}
	if (mimeKind !== 'generic' && mimeKind !== contentKind) {
		throw fail(
			`${subject} has the MIME type "${mimeType}" but its content is ${KINDS[contentKind].label}`,
			'The MIME type and the content must agree. Check the node that produced the file.',
		);
	}

	// The service needs a file name with a matching extension; make one up when there is none.
	const uploadName = fileName
		? extensionKind
			? fileName
			: `${fileName}.${KINDS[contentKind].extensions[0]}`
		: `${property}.${extension && extensionKind ? extension : KINDS[contentKind].extensions[0]}`;
	return { content, fileName: uploadName, mimeType: KINDS[contentKind].mimeTypes[0] };
}
