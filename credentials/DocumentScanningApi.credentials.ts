import { baseUrlTestExpression } from '../nodes/shared/transport/baseUrl';
import { credentialTestRules } from '../nodes/shared/transport/errorWording';
import type {
	IAuthenticate,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * Credential for the Document Scanning API.
 *
 * The key goes in `Authorization: Bearer <key>` or `X-API-Key: <key>` (`authHeader`).
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

	/**
	 * Adds the key to a request: `Authorization: Bearer <key>` or `X-API-Key: <key>`. A function
	 * rather than a generic definition: n8n evaluates a generic header's name and value as two
	 * expressions on every request, which cost about a fifth of a batch's upload time
	 * (docs/benchmarks.md); this does the same with no expression.
	 */
	authenticate: IAuthenticate = async (credentials, requestOptions) => {
		const key = String(credentials.apiKey ?? '');
		const header =
			credentials.authHeader === 'xApiKey'
				? { 'X-API-Key': key }
				: { Authorization: `Bearer ${key}` };
		return { ...requestOptions, headers: { ...requestOptions.headers, ...header } };
	};

	// GET /account. A Base URL that breaks a rule of the node's transport (not http(s), or with
	// user:password@, a query or a fragment) is turned into an address that cannot resolve and
	// names the problem: the rules and the expression come from nodes/shared/transport/baseUrl.ts.
	// A 401, 403 or 404 shows the nodes' own words for it (`rules`), not the HTTP status text. No
	// redirect is followed (it would send the key wherever one points): a redirect fails the test,
	// in these words on n8n 2.x (1.x says "Request failed with status code 302").
	test: ICredentialTestRequest = {
		request: {
			baseURL: baseUrlTestExpression(),
			url: '/account',
			method: 'GET',
			headers: { Accept: 'application/json' },
			disableFollowRedirect: true,
		},
		rules: credentialTestRules(),
	};
}
