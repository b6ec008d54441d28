/** The Document Scanning API (paths relative to /api/v1). */
import { authenticate } from './auth';
import { SandboxCore } from '../engine/core';
import { ApiResponse, errorResponse } from './http';
import { presentBalance, presentTemplate, wrapOne } from './present';
import { matchRoute, route } from './router';
import { ApiRequest, Handler, ok } from './handler';
import { getScan, listScans, uploadScan } from './scans';
import { createWebhook, deleteWebhook, listWebhooks, webhookLogs } from './webhooks';

export type { ApiRequest } from './handler';

// --- templates and account --------------------------------------------------

/** Always `{data: [...]}`: the spec shows this envelope. */
const listTemplates: Handler = ({ core, account }) =>
	ok(200, { data: core.store.activeTemplates(account.id).map(presentTemplate) });

const getAccount: Handler = ({ core, account }) =>
	ok(
		200,
		wrapOne(core.options.envelope, presentBalance(account, core.store.remainingScans(account))),
	);

// --- dispatch ---------------------------------------------------------------

const ROUTES = [
	route<Handler>('POST', '/scans', uploadScan),
	route<Handler>('GET', '/scans', listScans),
	route<Handler>('GET', '/scans/:id', getScan),
	route<Handler>('GET', '/templates', listTemplates),
	route<Handler>('GET', '/account', getAccount),
	route<Handler>('GET', '/webhooks', listWebhooks),
	route<Handler>('POST', '/webhooks', createWebhook),
	route<Handler>('DELETE', '/webhooks/:id', deleteWebhook),
	route<Handler>('GET', '/webhooks/:id/logs', webhookLogs),
];

/** Route lookup (404/405) comes before authentication (401/403). */
export async function handleApi(core: SandboxCore, request: ApiRequest): Promise<ApiResponse> {
	const method = request.req.method ?? 'GET';
	const match = matchRoute(ROUTES, method, request.path);
	if (match.kind === 'not_found')
		return errorResponse(404, `No API route ${method} ${request.path}.`);
	if (match.kind === 'method_not_allowed') {
		return errorResponse(
			405,
			`Method ${method} is not allowed here; allowed: ${match.allow.join(', ')}.`,
			{
				Allow: match.allow.join(', '),
			},
		);
	}
	const account = authenticate(core.store, request.credentials);
	if ('status' in account) return account;
	return match.handler({ ...request, core, account, params: match.params });
}
