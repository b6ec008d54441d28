import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runsAsTool } from '../execution/tool';
import { binaryEntryProblem, MALFORMED_ENTRY_HELP } from './binaryEntry';
import type { StreamDigest } from './fileDigest';
import { digestBuffer, digestStream, headOfStream } from './fileDigest';
import {
	ACCEPTED,
	extensionOf,
	KINDS,
	kindOfContent,
	kindOfExtension,
	uploadNameOf,
} from './fileKind';
import type { ByteSource } from './multipartBody';

/** Upload limit of POST /scans: 20 MB (20 × 1024 × 1024 bytes, inclusive). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/** A checked file of an input item, ready to upload; its bytes are not held. */
export interface UploadFile {
	/** The name to upload it under (its extension names its content's type). */
	fileName: string;
	size: number;
	/** The MIME type of its content. */
	mimeType: string;
	/** SHA-256 of the bytes (hex), when the check read the whole file (`hash: true`). */
	sha256?: string;
	/**
	 * The bytes to send, opened afresh for every attempt: a stream from n8n's binary store
	 * (filesystem, S3, database modes), or the bytes decoded from the item (in-memory mode).
	 */
	open(): Promise<ByteSource | Buffer>;
}

/** Decoded size of base64 data without decoding it. */
function base64Size(data: string): number {
	const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
	return Math.floor((data.length * 3) / 4) - padding;
}

/**
 * Checks the file of an input item locally, before any request: present, non-empty, at most
 * 20 MB, and a PDF, JPEG or PNG by its content (magic bytes), with no name that names another
 * known type (the declared MIME type is ignored, as the service does). An oversized file is
 * refused unread (size from the metadata or the base64 length). The bytes are read once at
 * most (whole, chunk by chunk, only with `hash`), and not kept: `open()` reads them again.
 */
export async function checkUploadFile(
	this: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
	{ hash }: { hash: boolean },
): Promise<UploadFile> {
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
				: runsAsTool(this.getNode())
					? 'As an AI tool the node receives no file from the model: upload the document in the workflow before the agent, or through a sub-workflow tool that downloads it (see the README, "AI agents and MCP").'
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
	const notAccepted = (what: string) =>
		fail(
			`${subject} is not a ${ACCEPTED} file (${what})`,
			`The service accepts ${ACCEPTED} files only. Convert the document first, or pick another binary property.`,
		);
	const fileName = (binary.fileName ?? '').trim();
	const extension = fileName ? extensionOf(fileName) : (binary.fileExtension ?? '').toLowerCase();
	const byName = extension ? kindOfExtension(extension) : undefined;
	if (byName === 'other') throw notAccepted(`file name extension ".${extension}"`);

	const tooLarge = (size: number) =>
		fail(
			`${subject} is too large: ${(size / 1024 / 1024).toFixed(1)} MB (${size} bytes); the limit is 20 MB (${MAX_UPLOAD_BYTES} bytes)`,
			'The service refuses files over 20 MB. Reduce the resolution or split the document before uploading.',
		);
	const empty = () =>
		fail(
			`${subject} is empty (0 bytes)`,
			'The file has no content. Check the node that produced it.',
		);

	// Size before reading: metadata of stored binary data, or the length of inline base64.
	let size = NaN;
	if (binary.id) {
		try {
			size = Number((await this.helpers.getBinaryMetadata(binary.id)).fileSize);
		} catch {
			// Unknown: the size comes from reading the file.
		}
	} else if (typeof binary.data === 'string') size = base64Size(binary.data);
	const knownSize = Number.isFinite(size) ? size : undefined;
	if (knownSize !== undefined) {
		if (knownSize > MAX_UPLOAD_BYTES) throw tooLarge(knownSize);
		if (knownSize === 0 && !binary.id) throw empty();
	}

	const content = await readContent.call(this, itemIndex, property, binary, knownSize, hash);
	if (content.size === 0 || content.head.length === 0) throw empty();
	if (content.size > MAX_UPLOAD_BYTES) throw tooLarge(content.size);

	const kind = kindOfContent(content.head);
	if (!kind) {
		throw fail(
			`${subject} is not a ${ACCEPTED} file: its content does not start with a PDF ("%PDF"), JPEG (FF D8 FF) or PNG (89 50 4E 47) signature`,
			`The service checks the content, not only the name. Make sure the binary property holds the document itself (not, e.g., an HTML error page or a ZIP archive).`,
		);
	}
	if (byName !== undefined && byName !== kind) {
		throw fail(
			`${subject} has the extension ".${extension}" but its content is ${KINDS[kind].label}`,
			`The file name extension and the content must agree. Rename the file to end in .${KINDS[kind].extensions[0]}.`,
		);
	}

	return {
		fileName: uploadNameOf(fileName, property, kind),
		size: content.size,
		mimeType: KINDS[kind].mimeType,
		sha256: content.digest?.sha256,
		open: content.open,
	};
}

/** What was read of the bytes: the head always, the digest when the whole file was read. */
interface Content {
	head: Buffer;
	size: number;
	digest?: StreamDigest;
	open(): Promise<ByteSource | Buffer>;
}

/**
 * The bytes of the file: from n8n's binary store as a stream (read whole only to digest them,
 * chunk by chunk), or decoded from the item (in-memory mode), decoded again at each `open()`
 * so that only the files in flight are held in memory.
 */
async function readContent(
	this: IExecuteFunctions,
	itemIndex: number,
	property: string,
	binary: IBinaryData,
	knownSize: number | undefined,
	hash: boolean,
): Promise<Content> {
	if (binary.id) {
		const id = binary.id;
		const open = async () => await this.helpers.getBinaryStream(id);
		if (!hash && knownSize !== undefined)
			return { head: await headOfStream(await open()), size: knownSize, open };
		const digest = await digestStream(await open());
		return { head: digest.head, size: digest.size, digest, open };
	}
	const open = async () => await this.helpers.getBinaryDataBuffer(itemIndex, property);
	const buffer = await open();
	const digest = hash ? digestBuffer(buffer) : undefined;
	return { head: Buffer.from(buffer.subarray(0, 8)), size: buffer.length, digest, open };
}
