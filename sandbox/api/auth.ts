/** API key authentication: `Authorization: Bearer <key>` or `X-API-Key: <key>`. */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiResponse, errorResponse } from './http';
import { Store } from '../engine/state';
import { AccountRecord } from '../engine/records';
import { AuthScheme } from '../types';

export interface Credentials {
	scheme: AuthScheme;
	key?: string;
}

/** A Bearer Authorization header wins over X-API-Key; other Authorization schemes are ignored. */
export function readCredentials(headers: IncomingHttpHeaders): Credentials {
	const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
	if (bearer) return { scheme: 'bearer', key: bearer[1] };
	const header = headers['x-api-key'];
	const key = (Array.isArray(header) ? header[0] : header)?.trim();
	if (key) return { scheme: 'x-api-key', key };
	return { scheme: 'none' };
}

/** The caller's account, or the 401/403 response. */
export function authenticate(store: Store, credentials: Credentials): AccountRecord | ApiResponse {
	if (!credentials.key) {
		return errorResponse(
			401,
			'API key missing. Send "Authorization: Bearer <API_KEY>" or "X-API-Key: <API_KEY>".',
		);
	}
	const account = store.accountByKey(credentials.key);
	if (!account) return errorResponse(401, 'API key invalid.');
	if (!account.business)
		return errorResponse(403, 'This account has no API access: the Business package is required.');
	return account;
}
