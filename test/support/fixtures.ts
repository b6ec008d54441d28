/** Test data shared by the test folders: documents, input items, the trigger's event list. */
import path from 'node:path';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

/**
 * Both events, as a user picks them in the trigger nodes. Written out here, not imported from
 * nodes/: the tests check the nodes against an independent list.
 */
export const ALL_EVENTS = ['scan.completed', 'scan.failed'];

/** An input item carrying a file as binary data, the way n8n's Read File / HTTP nodes make them. */
export function binaryItem(
	content: Buffer,
	fileName: string,
	mimeType: string,
	json: IDataObject = {},
	property = 'data',
): INodeExecutionData {
	return {
		json,
		binary: {
			[property]: {
				data: content.toString('base64'),
				mimeType,
				fileName,
				fileExtension: path.extname(fileName).slice(1),
				fileSize: String(content.length),
			},
		},
	};
}

let counter = 0;
const unique = (label: string): string =>
	`${label} ${process.pid}-${++counter}-${Math.random().toString(36).slice(2)}`;

/** A small PDF-looking file whose content differs on every call (no accidental 409). */
export function pdfBytes(label = 'doc'): Buffer {
	return Buffer.from(`%PDF-1.4\n% ${unique(label)}\n%%EOF\n`);
}

export function pngBytes(label = 'img'): Buffer {
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		Buffer.from(unique(label)),
	]);
}

export function jpegBytes(label = 'photo'): Buffer {
	return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(unique(label))]);
}
