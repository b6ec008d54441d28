import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * The Base URL of the credential: the checks made before every request, and the wording of
 * a 404 that shows the Base URL does not point at the API.
 *
 * The credential test (credentials/DocumentScanningApi.credentials.ts) applies the same
 * rules in an expression; test/credential keeps the two in step.
 */

const EXAMPLE = 'https://scan.example.com/api/v1';

interface BaseUrlRule {
	/** True when the (trimmed) Base URL breaks the rule. */
	breaks: (value: string) => boolean;
	message: string;
	description: string;
}

const RULES: BaseUrlRule[] = [
	{
		breaks: (value) => !/^https?:\/\/[^\s/]/i.test(value),
		message: 'must start with http:// or https://',
		description: `Open the credential and enter the full address including the version prefix, e.g. ${EXAMPLE}`,
	},
	{
		// `user:password@host`: the HTTP client would send Basic authentication instead of the key.
		breaks: (value) => /^[a-z]+:\/\/[^/?#]*@/i.test(value),
		message: 'must not contain a user name or password (user:password@)',
		description: `The service authenticates with the API key only; a user:password@ part would replace the key with Basic authentication. Remove it, e.g. ${EXAMPLE}`,
	},
	{
		breaks: (value) => value.includes('?'),
		message: 'must not contain a query (?…)',
		description: `Request paths are added after the Base URL, so a query would end up in the middle of every address. Remove everything from the "?" on, e.g. ${EXAMPLE}`,
	},
	{
		breaks: (value) => value.includes('#'),
		message: 'must not contain a fragment (#…)',
		description: `Everything after "#" is never sent, so every request would go to the server's root. Remove everything from the "#" on, e.g. ${EXAMPLE}`,
	},
];

/**
 * Reads and checks the Base URL of the credential; tolerates surrounding spaces and a
 * trailing slash. The value itself is never repeated in the error (it may hold a password).
 */
export function normalizeBaseUrl(node: INode, raw: unknown): string {
	const value = typeof raw === 'string' ? raw.trim() : '';
	const broken = RULES.find((rule) => rule.breaks(value));
	if (broken) {
		throw new NodeOperationError(
			node,
			`The Base URL of the Document Scanning API credential ${broken.message}`,
			{ description: broken.description },
		);
	}
	return value.replace(/\/+$/, '');
}

/**
 * True for an error body the API itself sends: JSON with a string `error` (spec: "Errors
 * are JSON of the form {"error": <string>}"), bare or in a `data` envelope.
 */
export function isApiErrorBody(body: unknown): boolean {
	let value = body;
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value);
		} catch {
			return false;
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
	const record = value as IDataObject;
	if (typeof record.error === 'string') return true;
	const inner = record.data;
	return (
		typeof inner === 'object' && inner !== null && typeof (inner as IDataObject).error === 'string'
	);
}

/** Wording of a 404 whose body is not the API's JSON: the request never reached the API. */
export const WRONG_PREFIX_404 = {
	message: 'Not found: the Base URL is probably missing the API version prefix (e.g. /api/v1)',
	description: `The server answered 404 with a page that is not the API's JSON, so the request did not reach the API. Open the Document Scanning API credential and check that the Base URL ends in the version prefix, e.g. ${EXAMPLE}`,
};
