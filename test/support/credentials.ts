/**
 * The test environment's credentials, and a credentials helper that applies the credential
 * type's `authenticate` the way n8n's CLI does (generic: header keys and values resolved as
 * expressions), so requests really carry the API key.
 */

import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { ICredentialsHelper, isExpression, Workflow } from 'n8n-workflow';

export interface TestEnvironment {
	baseUrl: string;
	apiKey: string;
	authHeader?: 'authorization' | 'xApiKey';
}

export function credentialsFor(env: TestEnvironment): ICredentialDataDecryptedObject {
	return {
		baseUrl: env.baseUrl,
		apiKey: env.apiKey,
		authHeader: env.authHeader ?? 'authorization',
	};
}

export class TestCredentialsHelper extends ICredentialsHelper {
	/** Every request the nodes authenticated, for assertions (method + url only). */
	readonly authenticated: Array<{ method?: string; url: string }> = [];

	constructor(
		private readonly credentialTypes: Record<string, ICredentialType>,
		private readonly credentials: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const type = this.credentialTypes[typeName];
		this.authenticated.push({ method: requestOptions.method, url: String(requestOptions.url) });
		const { authenticate } = type;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (authenticate?.type === 'generic') {
			const resolve = (value: string) =>
				isExpression(value)
					? String(
							workflow.expression.getSimpleParameterValue(
								node,
								value,
								'internal',
								{ $credentials: credentials },
								undefined,
								'',
							) ?? '',
						)
					: value;
			for (const [outerKey, entries] of Object.entries(authenticate.properties)) {
				const target = ((requestOptions as unknown as IDataObject)[outerKey] ??= {}) as IDataObject;
				for (const [key, value] of Object.entries(entries as IDataObject)) {
					target[resolve(key)] = resolve(String(value));
				}
			}
		}
		return requestOptions;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(_details: INodeCredentialsDetails, _type: string): Promise<ICredentials> {
		throw new Error('getCredentials is not used by these nodes');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const found = this.credentials[type];
		if (!found) throw new Error(`No test credentials of type ${type}`);
		return { ...found };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.credentialTypes[type]?.properties ?? [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}
}
