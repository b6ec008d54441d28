import type { INodeTypeDescription } from 'n8n-workflow';

/**
 * Hints for n8n's AI workflow builder and MCP node search: n8n 2.x reads `searchHint` and
 * `relatedNodes`; the n8n-workflow built against (2.11) names the first `message`, so both
 * carry the same text. n8n 1.x ignores the field.
 */
const SEARCH_HINT =
	'Reads documents (invoices, delivery notes, receipts) with the Document Scanning service: Scan → Upload sends a PDF/JPG/PNG from a binary field with a template and, with Wait for Completion, outputs the extracted fields or one item per table row (Options → Output). Scan → Get / Get Many read scans, Account → Get the credit balance. Every upload uses one scan credit. As an AI Agent or MCP tool, fill IDs and filters with $fromAI() (IDs type number); answers are compact; give agents the reading operations: Upload is refused as a tool (a tool call carries no file, so upload chat attachments before the agent), Webhook Create/Delete only with "Allow Changes to the Account".';

export const BUILDER_HINT = {
	message: SEARCH_HINT,
	searchHint: SEARCH_HINT,
	relatedNodes: [
		{
			nodeType: 'n8n-nodes-document-scanning.documentScanningTrigger',
			relationHint: 'Starts a workflow when a scan is finished (webhook), instead of waiting',
		},
		{
			nodeType: 'n8n-nodes-document-scanning.documentScanningPollTrigger',
			relationHint: 'Starts a workflow when a scan is finished, for n8n without a public address',
		},
		{
			nodeType: 'n8n-nodes-base.readWriteFile',
			relationHint: 'Reads the PDF files to upload into binary fields',
		},
		{
			nodeType: '@n8n/n8n-nodes-langchain.agent',
			relationHint: 'Uses this node as a tool to answer questions about scans and credits',
		},
	],
} as unknown as INodeTypeDescription['builderHint'];
