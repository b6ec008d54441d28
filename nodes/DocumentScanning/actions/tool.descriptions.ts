import type { INodeProperties } from 'n8n-workflow';

import type { DocumentScanningType } from './node.type';

/**
 * What a model reads about each operation when the node is an AI tool: what it does, what it
 * returns, when to use it, and whether it costs a scan credit or changes the account.
 *
 * n8n's tool form of the node sends the model the node's `toolDescription` parameter when it
 * has one (else "<action> in Document Scanning", e.g. "Get a scan in Document Scanning"). So
 * the node has one per operation, shown only in the tool form (`@tool`), defaulting to the
 * text below; the user can edit it like any parameter. A node without it would get n8n's own
 * "Tool Description" (Set Automatically / Set Manually) instead.
 */
export const TOOL_DESCRIPTIONS: Record<DocumentScanningType['resource'], Record<string, string>> = {
	scan: {
		get: 'Reads one scan of the Document Scanning service by its numeric ID. Returns its status (uploaded, processing, completed, validation_failed or failed) and the data extracted from the document: fields such as invoice number, supplier and total, and table rows such as line items. Use it when you know the scan ID; to find an ID, list the scans first. Uses no scan credit.',
		getAll:
			'Lists the scans of the Document Scanning account, newest first: for each its ID, status, file name, template ID and extracted data. Use it to find a scan (for example by file name, status or date) or to answer questions about recent documents. Uses no scan credit.',
		upload:
			'Uploads the document in its input (PDF, JPG or PNG, up to 20 MB) to the Document Scanning service, which extracts its data with a template. Each new document uses one scan credit; a document the service already has is refused, or its earlier scan returned, without a credit. Returns the scan with its ID and status, or its extracted data when the node waits for the result. Only use it when the user asks to scan a new document.',
	},
	template: {
		getAll:
			'Lists the active templates of the Document Scanning account: ID, name and extraction mode. A template defines which fields are extracted from a document. Use it to find a template ID or to tell which kinds of documents can be read. Uses no scan credit.',
	},
	account: {
		get: 'Reads the scan credit balance of the Document Scanning account: remaining_scans (credits left; each upload uses one), used_scans and total_scans. Use it when asked how many scans are left, or before uploading documents. Uses no scan credit.',
	},
	webhook: {
		create:
			'Registers a URL that receives scan events (scan.completed, scan.failed) and returns the webhook with its ID and signing secret. Changes the account: only use it when the user asks for a new webhook, and never repeat the secret.',
		delete:
			'Deletes one webhook of the Document Scanning account by its ID: its URL receives no more scan events. Changes the account: only use it when the user asks to delete that webhook.',
		getAll:
			'Lists the webhooks of the Document Scanning account: ID, name, URL, events and whether each is active. Use it to find a webhook ID or to check where scan events are sent.',
		getLogs:
			'Reads the delivery log of one webhook by its ID, newest first: time, event and HTTP status of each delivery attempt. Use it to find out why scan events do not arrive.',
	},
};

/** The `toolDescription` parameter of every operation, shown only in the node's tool form. */
export function toolDescriptionProperties(): INodeProperties[] {
	return Object.entries(TOOL_DESCRIPTIONS).flatMap(([resource, operations]) =>
		Object.entries(operations).map(([operation, text]): INodeProperties => ({
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: text,
			required: true,
			typeOptions: { rows: 3 },
			description:
				'What the AI model reads about this tool: what it does, what it returns and when to use it',
			displayOptions: {
				show: { '@tool': [true], resource: [resource], operation: [operation] },
			},
		})),
	);
}
