/** The credential test, as n8n runs it when the user clicks "Test" or saves the credential. */

import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	INode,
	INodeParameters,
	INodeType,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';
import { ExecuteContext, RoutingNode } from 'n8n-core';
import { additionalDataFor } from './additional-data';
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

/** What n8n's credential test tells the user: OK, or an error and its message. */
export interface CredentialTestVerdict {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * The credential test as n8n's own tester runs a declared `test.request`: a stand-in node whose
 * one property routes that request, run by n8n-core's `RoutingNode` (the request goes through
 * `httpRequestWithAuthentication` with every option the request declares, e.g.
 * `disableFollowRedirect`); a failed request is judged by the test's `responseCode` rules, then
 * by its status. The verdict logic is ours, written from what n8n's tester does.
 */
export async function testCredentialInCore(
	credentials: ICredentialDataDecryptedObject,
): Promise<CredentialTestVerdict> {
	const { nodeTypes, credentialTypes } = await loadPackage();
	const type = credentialTypes[CREDENTIAL_TYPE];
	const test = type.test!;
	const node: INode = {
		id: 'credential-test',
		name: 'Temp-Node',
		type: 'credential-test-node',
		typeVersion: 1,
		position: [0, 0],
		parameters: { temp: '' },
		credentials: { [CREDENTIAL_TYPE]: { id: 'test', name: 'test' } },
	};
	const standIn: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'credential-test-node',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					default: '',
					routing: { request: test.request },
				},
			],
		},
	} as unknown as INodeType;
	const types = {
		getByName: (name: string) =>
			name === standIn.description.name ? standIn : nodeTypes.getByName(name),
		getByNameAndVersion: (name: string, version?: number) =>
			name === standIn.description.name ? standIn : nodeTypes.getByNameAndVersion(name, version),
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: types,
	});
	const helper = new TestCredentialsHelper(credentialTypes, { [CREDENTIAL_TYPE]: credentials });
	const additionalData = additionalDataFor(helper, undefined);
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const decrypted = { id: 'test', name: 'test', type: CREDENTIAL_TYPE, data: credentials };
	try {
		await new RoutingNode(context, standIn, decrypted).runNode();
	} catch (error) {
		// As n8n's tester: the client's answer (the `cause` n8n keeps, when it keeps one: n8n 2.x
		// does, n8n 1.x and n8n-core under jest do not) is judged by the test's `responseCode`
		// rules, then by its status; else the error's code or message.
		const cause = (error as { cause?: { response?: { status?: number }; code?: string } }).cause;
		const status = cause?.response?.status;
		if (status !== undefined) {
			const rule = (test.rules ?? []).find(
				(r) => r.type === 'responseCode' && r.properties.value === status,
			);
			if (rule) return { status: 'Error', message: String(rule.properties.message) };
			if (status < 200 || status > 299)
				return { status: 'Error', message: `Received HTTP status code: ${status}` };
		}
		return { status: 'Error', message: cause?.code ?? (error as Error).message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
