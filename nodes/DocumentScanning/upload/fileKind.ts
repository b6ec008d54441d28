/**
 * What a file is, by its content and its file name: refused when its content is not a PDF, JPEG
 * or PNG, or its extension names another known type (the service checks the extension).
 */

export type FileKind = 'pdf' | 'jpeg' | 'png';

export const KINDS: Record<FileKind, { label: string; extensions: string[]; mimeType: string }> = {
	pdf: { label: 'PDF', extensions: ['pdf'], mimeType: 'application/pdf' },
	jpeg: { label: 'JPEG', extensions: ['jpg', 'jpeg'], mimeType: 'image/jpeg' },
	png: { label: 'PNG', extensions: ['png'], mimeType: 'image/png' },
};

export const ACCEPTED = 'PDF, JPG, JPEG or PNG';

/** A known type the service does not take: a name naming it refuses the file. */
export type Named = FileKind | 'other' | undefined;

/** Extensions of documents, archives, images and media the service does not take. */
const OTHER_EXTENSIONS = new Set(
	(
		'doc docx docm dot dotx odt ott rtf txt md csv tsv xls xlsx xlsm ods ppt pptx odp key pages numbers ' +
		'html htm xhtml xml json yaml yml eml msg mbox zip rar 7z gz tgz tar bz2 xz ' +
		'gif bmp tif tiff webp heic heif avif svg ico psd raw cr2 nef ' +
		'mp3 wav ogg m4a mp4 mov avi mkv webm exe dll bin iso dmg apk ps eps xps oxps djvu epub'
	).split(' '),
);

/** The kind a file's content starts with (its magic bytes), or undefined. */
export function kindOfContent(head: Uint8Array): FileKind | undefined {
	const starts = (...bytes: number[]) =>
		head.length >= bytes.length && bytes.every((byte, index) => head[index] === byte);
	if (starts(0x25, 0x50, 0x44, 0x46)) return 'pdf';
	if (starts(0xff, 0xd8, 0xff)) return 'jpeg';
	if (starts(0x89, 0x50, 0x4e, 0x47)) return 'png';
	return undefined;
}

/** The extension of a file name (lower case, without the dot), or ''. */
export function extensionOf(fileName: string): string {
	const match = /\.([^./\\]+)$/.exec(fileName.trim());
	return match ? match[1].toLowerCase() : '';
}

/** What a file name extension names: one of ours, another known type, or nothing known. */
export function kindOfExtension(extension: string): Named {
	const ours = (Object.keys(KINDS) as FileKind[]).find((kind) =>
		KINDS[kind].extensions.includes(extension),
	);
	if (ours) return ours;
	return OTHER_EXTENSIONS.has(extension) ? 'other' : undefined;
}

/**
 * The name a file is uploaded with: its own when its extension names its content's kind, else
 * with that kind's extension added (`Lieferschein 12.03.2024.pdf`); without one, the property's.
 */
export function uploadNameOf(fileName: string, property: string, kind: FileKind): string {
	const name = fileName.trim();
	const extension = KINDS[kind].extensions[0];
	if (!name) return `${property}.${extension}`;
	return kindOfExtension(extensionOf(name)) === kind ? name : `${name}.${extension}`;
}
