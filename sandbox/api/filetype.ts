/** Accepted upload types, checked by magic bytes AND by file name extension. */
export type FileKind = 'pdf' | 'jpeg' | 'png';

export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

const MAGIC: ReadonlyArray<{ kind: FileKind; bytes: number[] }> = [
	{ kind: 'pdf', bytes: [0x25, 0x50, 0x44, 0x46] }, // %PDF
	{ kind: 'jpeg', bytes: [0xff, 0xd8, 0xff] },
	{ kind: 'png', bytes: [0x89, 0x50, 0x4e, 0x47] },
];

const EXTENSIONS: Readonly<Record<string, FileKind>> = {
	pdf: 'pdf',
	jpg: 'jpeg',
	jpeg: 'jpeg',
	png: 'png',
};

export function kindFromContent(data: Buffer): FileKind | undefined {
	return MAGIC.find((m) => m.bytes.every((byte, i) => data[i] === byte))?.kind;
}

export function kindFromName(filename: string): FileKind | undefined {
	const match = /\.([^.]+)$/.exec(filename);
	return match ? EXTENSIONS[match[1].toLowerCase()] : undefined;
}

/** Error messages for the `file` field (empty when the type is acceptable). */
export function fileTypeProblems(filename: string, data: Buffer): string[] {
	const byName = kindFromName(filename);
	const byContent = kindFromContent(data);
	const problems: string[] = [];
	if (!byName) problems.push('The file name must end in .pdf, .jpg, .jpeg or .png.');
	if (!byContent) problems.push('The file content is not a PDF, JPEG or PNG document.');
	if (byName && byContent && byName !== byContent) {
		problems.push(
			`The file content (${byContent.toUpperCase()}) does not match the file name extension.`,
		);
	}
	return problems;
}
