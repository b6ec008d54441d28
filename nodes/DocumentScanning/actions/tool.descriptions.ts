import type { INodeProperties } from 'n8n-workflow';

import type { DocumentScanningType } from './node.type';
import { ANSWER_BOUND, MIN_ANSWER_BOUND } from '../execution/tool';

/**
 * What a model reads about each operation as an AI tool (n8n sends the `toolDescription` of the
 * tool form; without one it adds its own): what it does, the fields of its compact answer
 * (execution/toolAnswer.ts), when to use it, what it costs or changes, and the answer's bound.
 */
export const TOOL_DESCRIPTIONS: Record<DocumentScanningType['resource'], Record<string, string>> = {
	scan: {
		get: 'Reads one scan of the Document Scanning service by its numeric ID. Returns scan_id, status (uploaded, processing, completed, validation_failed or failed), original_filename (the name the file was uploaded with; the service stores it with a content fingerprint such as .ds-1a2b3c4d5e6f before the extension), template_id, created_at (ISO 8601), confidence (0 to 100), error_message if the scan failed, validation_errors if it did not validate, and the extracted fields such as invoice_number, supplier_name and total_amount, reviewed values included; an extracted field named like one of these (such as status) is under extracted_fields. Each list, at any depth, shows its first 10 entries; not_shown gives how many each left out, by path (line_items, summary.rows). Use it when you know the scan ID; to find an ID, list the scans first. Uses no scan credit.',
		getAll:
			'Lists the scans of the Document Scanning account, newest first, at most 50 per call. For each: scan_id, status (uploaded, processing, completed, validation_failed or failed), original_filename (the name the file was uploaded with, without the .ds-<hex> content fingerprint of the stored name), template_id, created_at (ISO 8601), confidence, error_message if it failed, and the extracted fields such as invoice_number, supplier_name and total_amount (one named like these under extracted_fields). Tables and validation_errors are left out; not_shown counts their entries (read the scan for them). A status filter takes one of the statuses above, or an empty string for all; a template filter takes a template ID from the template list, or an empty string. Use it to find a scan by file name, status or date, or to answer questions about recent documents. Uses no scan credit.',
		upload:
			'Cannot scan a document for an AI model: a tool call carries only the model’s arguments, never a file, so every call is refused, uploading nothing and using no scan credit. Do not use it; to have a document scanned, the user attaches it to the chat (when the workflow scans attachments) or scans it in an n8n workflow.',
	},
	template: {
		getAll:
			'Lists the active templates of the Document Scanning account: id, name, extraction_mode (scalar, tabular, mixed or vision), usage_count and created_at. A template defines which fields are extracted from a document. Use it to find a template ID or to tell which kinds of documents can be read. Uses no scan credit.',
	},
	account: {
		get: 'Reads the scan credit balance of the Document Scanning account: remaining_scans (credits left; each scanned document uses one), used_scans and total_scans. Use it when asked how many scans are left. Uses no scan credit.',
	},
	webhook: {
		create:
			'Registers a URL that receives scan events (scan.completed, scan.failed) and returns the webhook: id, name, url (without its query) and events. Its signing secret reads [withheld]: the service shows it only once, so for signed events the user creates webhooks in n8n instead. Changes the account: only use it when the user asks for a new webhook. Refused unless the workflow allows this tool to change the account.',
		delete:
			'Deletes one webhook of the Document Scanning account by its ID: its URL receives no more scan events. Returns deleted and id. A webhook whose name starts with "n8n: " (in any case or spacing) belongs to a Document Scanning Trigger, and one whose URL has /webhook/ or /webhook-test/ to an n8n trigger: neither is ever deleted. Changes the account: only use it when the user asks to delete that webhook. Refused unless the workflow allows this tool to change the account.',
		getAll:
			'Lists the webhooks of the Document Scanning account: id, name, url (without its query), events, whether each is active, failure_count and last_delivery_at. A name starting with "n8n: " marks the webhook of a Document Scanning Trigger. Use it to find a webhook ID or to check where scan events are sent. Uses no scan credit.',
		getLogs:
			'Reads the delivery log of one webhook by its ID: webhook_id, total (attempts logged), shown, and logs, the 20 newest attempts by created_at, newest first, each with created_at, event, scan_id, status_code, success and error. Use it to find out why scan events do not arrive. Uses no scan credit.',
	},
};

/** What every description ends with: the answer's bound (the builder may raise it) and what it hides. */
export const ANSWER_NOTE = ` Answers stop at ${ANSWER_BOUND.toLocaleString('en-US')} characters: texts, lists, results cut, not_shown says what. Secrets and the service's host read [withheld].`;

/** Parameters only of the node's tool form: each operation's `toolDescription`, and its limits. */
export function toolProperties(): INodeProperties[] {
	const descriptions = Object.entries(TOOL_DESCRIPTIONS).flatMap(([resource, operations]) =>
		Object.entries(operations).map(([operation, text]): INodeProperties => ({
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: `${text}${ANSWER_NOTE}`,
			required: true,
			typeOptions: { rows: 3 },
			description:
				'What the AI model reads about this tool: what it does, what it returns and when to use it',
			displayOptions: { show: { '@tool': [true], resource: [resource], operation: [operation] } },
		})),
	);
	return [
		...descriptions,
		{
			displayName: 'Answer Bound (Characters)',
			name: 'answerBound',
			type: 'number',
			noDataExpression: true,
			default: ANSWER_BOUND,
			typeOptions: { minValue: MIN_ANSWER_BOUND },
			description:
				'The most characters of one answer the AI model reads (about 4 characters a token); beyond it long texts, lists and results are cut, saying what was left out',
			displayOptions: { show: { '@tool': [true] } },
		},
		{
			displayName: 'Allow Changes to the Account',
			name: 'allowChanges',
			type: 'boolean',
			noDataExpression: true,
			default: false,
			description:
				'Whether the AI model may use this tool. Off, every call is refused before any request, so a model cannot create or delete webhooks by mistake or be talked into it.',
			displayOptions: {
				show: { '@tool': [true], resource: ['webhook'], operation: ['create', 'delete'] },
			},
		},
	];
}
