import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isPlainObject, unwrapRecord } from './envelopes';

/**
 * The Base URL of the credential: the checks made before every request, and the wording of
 * a 404 that shows the Base URL does not point at the API.
 *
 * The credential test (credentials/DocumentScanningApi.credentials.ts) runs in n8n as a
 * declared request, not as node code, so it cannot call `normalizeBaseUrl`: it applies the same
 * rules through `baseUrlTestExpression`, built from the one list below.
 */

export const EXAMPLE = 'https://scan.example.com/api/v1';

interface BaseUrlRule {
	/** Matches a (trimmed) Base URL that breaks the rule, or (`negate`) one that keeps it. */
	pattern: RegExp;
	negate?: boolean;
	message: string;
	/** The host of the address the credential test sends to instead: it cannot resolve, and names the problem. */
	testHost: string;
	description: string;
}

const RULES: BaseUrlRule[] = [
	{
		pattern: /^https?:\/\/[^\s/]/i,
		negate: true,
		message: 'must start with http:// or https://',
		testHost: 'base-url-must-start-with-http-or-https.invalid',
		description: `Open the credential and enter the full address including the version prefix, e.g. ${EXAMPLE}`,
	},
	{
		// `user:password@host`: the HTTP client would send Basic authentication instead of the key.
		pattern: /^[a-z]+:\/\/[^/?#]*@/i,
		message: 'must not contain a user name or password (user:password@)',
		testHost: 'base-url-must-not-contain-user-or-password.invalid',
		description: `The service authenticates with the API key only; a user:password@ part would replace the key with Basic authentication. Remove it, e.g. ${EXAMPLE}`,
	},
	{
		pattern: /\?/,
		message: 'must not contain a query (?…)',
		testHost: 'base-url-must-not-contain-a-query.invalid',
		description: `Request paths are added after the Base URL, so a query would end up in the middle of every address. Remove everything from the "?" on, e.g. ${EXAMPLE}`,
	},
	{
		pattern: /#/,
		message: 'must not contain a fragment (#…)',
		testHost: 'base-url-must-not-contain-a-fragment.invalid',
		description: `Everything after "#" is never sent, so every request would go to the server's root. Remove everything from the "#" on, e.g. ${EXAMPLE}`,
	},
];

/**
 * The credential test's Base URL as an n8n expression: the first rule the Base URL breaks turns
 * it into `http://<rule's testHost>`, so the test fails with a readable message and nothing (no
 * password, no key) is sent anywhere; a sound Base URL loses its trailing slashes.
 */
export function baseUrlTestExpression(): string {
	const checks = RULES.map(
		(rule) =>
			`${rule.negate ? '!' : ''}${String(rule.pattern)}.test(url) ? "http://${rule.testHost}"`,
	);
	return `={{ (url => ${[...checks, 'url.replace(/\\/+$/, "")'].join(' : ')})(String($credentials.baseUrl).trim()) }}`;
}

/**
 * Reads and checks the Base URL of the credential; tolerates surrounding spaces and a
 * trailing slash. The value itself is never repeated in the error (it may hold a password).
 */
export function normalizeBaseUrl(node: INode, raw: unknown): string {
	const value = typeof raw === 'string' ? raw.trim() : '';
	const broken = RULES.find((rule) => rule.pattern.test(value) !== Boolean(rule.negate));
	if (broken)
		throw new NodeOperationError(
			node,
			`The Base URL of the Document Scanning API credential ${broken.message}`,
			{ description: broken.description },
		);
	return value.replace(/\/+$/, '');
}

/**
 * True for an error body the API itself sends: JSON with a string `error` (spec: "Errors
 * are JSON of the form {"error": <string>}"), bare or in a `data` envelope.
 */
export function isApiErrorBody(body: unknown): boolean {
	const bare = isPlainObject(body) && typeof body.error === 'string';
	return bare || typeof unwrapRecord(body).error === 'string';
}

/** Wording of a 404 whose body is not the API's JSON: the request never reached the API. */
export const WRONG_PREFIX_404 = {
	message: 'Not found: the Base URL is probably missing the API version prefix (e.g. /api/v1)',
	description: `The server answered 404 with a page that is not the API's JSON, so the request did not reach the API. Open the Document Scanning API credential and check that the Base URL ends in the version prefix, e.g. ${EXAMPLE}`,
};
