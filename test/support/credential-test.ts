/** The credential test, as n8n runs it when the user clicks "Test" or saves the credential. */

import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	INode,
	INodeParameters,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { TestCredentialsHelper } from './credentials';
import { CREDENTIAL_TYPE, loadPackage, MANUAL_TRIGGER_TYPE } from './package';

export interface CredentialTestOutcome {
	/** HTTP status, or undefined when no response came back. */
	status?: number;
	/** The request as n8n would send it (URL after expression resolution, header names). */
	url: string;
	headerNames: string[];
	/** Network-level error text, when the request could not be made. */
	networkError?: string;
	/**
	 * What n8n 2.x's credential tester shows for an answer (CredentialsTester, 2.40.7): the message
	 * of the `rules` entry for its status, else the HTTP status text. (n8n 1.123 loses the HTTP
	 * error's response before its tester reads it, so it applies no rule: the e2e shows both.)
	 */
	shown?: string;
}

/**
 * Resolves the credential type's `test.request` with the given credential data (expressions
 * in baseURL/url are evaluated as n8n does), applies `authenticate`, and sends it.
 */
export async function runCredentialTest(
	credentials: ICredentialDataDecryptedObject,
): Promise<CredentialTestOutcome> {
	const { nodeTypes, credentialTypes } = await loadPackage();
	const type = credentialTypes[CREDENTIAL_TYPE];
	if (!type.test?.request) throw new Error('The credential type has no test request');
	const node: INode = {
		id: 'credential-test',
		name: 'Credential test',
		type: MANUAL_TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const resolved = workflow.expression.getComplexParameterValue(
		node,
		type.test.request as unknown as INodeParameters,
		'internal',
		{ $credentials: credentials },
		undefined,
		undefined,
		credentials,
	) as unknown as IHttpRequestOptions;
	const helper = new TestCredentialsHelper(credentialTypes, { [CREDENTIAL_TYPE]: credentials });
	const request = await helper.authenticate(
		credentials,
		CREDENTIAL_TYPE,
		{ ...resolved },
		workflow,
		node,
	);
	const url = `${String(request.baseURL ?? '')}${String(request.url)}`;
	const headers = (request.headers ?? {}) as Record<string, string>;
	try {
		const response = await fetch(url, { method: request.method ?? 'GET', headers });
		await response.arrayBuffer();
		const rule = (type.test.rules ?? []).find(
			(r) => r.type === 'responseCode' && r.properties.value === response.status,
		);
		const shown = response.ok
			? 'Connection successful!'
			: (rule?.properties.message ?? response.statusText);
		return { status: response.status, url, headerNames: Object.keys(headers), shown };
	} catch (error) {
		const cause = (error as Error & { cause?: Error }).cause;
		return {
			url,
			headerNames: Object.keys(headers),
			networkError: String(cause?.message ?? error),
		};
	}
}
