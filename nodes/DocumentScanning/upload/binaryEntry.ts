/**
 * Shape check of one binary entry before its fields are read: one built by hand (e.g. in a Code
 * node) may lack base64 text in `data`, and n8n's helpers then fail with a raw TypeError.
 */

function describeValue(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	const type = typeof value;
	return type === 'object' ? 'an object' : `a ${type}`;
}

const TEXT_FIELDS = ['id', 'fileName', 'mimeType', 'fileExtension'] as const;

/** What is wrong with the entry, worded to follow "is malformed: ", or undefined when it is sound. */
export function binaryEntryProblem(entry: unknown): string | undefined {
	if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
		return `it is ${describeValue(entry)}, not a binary entry`;
	}
	const record = entry as Record<string, unknown>;
	for (const field of TEXT_FIELDS) {
		const value = record[field];
		if (value !== undefined && value !== null && typeof value !== 'string') {
			return `its "${field}" is ${describeValue(value)}, not text`;
		}
	}
	if (typeof record.id === 'string' && record.id !== '') return undefined;
	if (record.data === undefined) return 'its "data" is missing';
	if (typeof record.data !== 'string')
		return `its "data" is ${describeValue(record.data)}, not base64 text`;
	return undefined;
}

export const MALFORMED_ENTRY_HELP =
	'Binary data made by n8n nodes holds the file as base64 text in "data". If a Code node builds the item, set "data" to the base64 of the file (e.g. Buffer.from(bytes).toString("base64")) or use this.helpers.prepareBinaryData().';
