import { baseUrlTestExpression } from '../nodes/shared/transport/baseUrl';
import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * Credential for the Document Scanning API.
 *
 * Authentication is declarative: the header name itself is an expression, so one
 * generic definition sends either `Authorization: Bearer <key>` or `X-API-Key: <key>`.
 * n8n resolves both the key and the value of a generic header as expressions.
 */
export class DocumentScanningApi implements ICredentialType {
	name = 'documentScanningApi';

	displayName = 'Document Scanning API';

	icon: Icon = {
		light: 'file:../nodes/DocumentScanning/documentScanning.svg',
		dark: 'file:../nodes/DocumentScanning/documentScanning.dark.svg',
	};

	documentationUrl = 'https://github.com/document-scanning/n8n-nodes-document-scanning#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://scan.example.com/api/v1',
			description:
				'Address of the API including its version prefix (ends in /api/v1). Must start with http:// or https://. A trailing slash is ignored.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Created in the application under "API & Webhooks". It is shown in full only once, when it is created.',
		},
		{
			displayName: 'Send API Key As',
			name: 'authHeader',
			type: 'options',
			options: [
				{
					name: 'Authorization: Bearer',
					value: 'authorization',
					description: 'Send the key as "Authorization: Bearer &lt;key&gt;"',
				},
				{
					name: 'X-API-Key',
					value: 'xApiKey',
					description: 'Send the key in the "X-API-Key" header',
				},
			],
			default: 'authorization',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'={{ $credentials.authHeader === "xApiKey" ? "X-API-Key" : "Authorization" }}':
					'={{ ($credentials.authHeader === "xApiKey" ? "" : "Bearer ") + $credentials.apiKey }}',
			},
		},
	};

	// GET /account. A Base URL that breaks a rule of the node's transport (not http(s), or with
	// user:password@, a query or a fragment) is turned into an address that cannot resolve and
	// names the problem: the rules and the expression come from nodes/shared/transport/baseUrl.ts.
	test: ICredentialTestRequest = {
		request: {
			baseURL: baseUrlTestExpression(),
			url: '/account',
			method: 'GET',
			headers: { Accept: 'application/json' },
		},
	};
}
