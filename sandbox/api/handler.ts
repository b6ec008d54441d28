/** What every API route handler gets (the request, the sandbox, the authenticated account) and answers. */
import type { IncomingMessage } from 'node:http';
import { Credentials } from './auth';
import { SandboxCore } from '../engine/core';
import { ApiResponse, FieldErrors, validationResponse } from './http';
import { AccountRecord } from '../engine/records';
import type { RequestLogEntry } from '../types';

export interface ApiRequest {
	req: IncomingMessage;
	/** Path after /api/v1. */
	path: string;
	query: URLSearchParams;
	credentials: Credentials;
	/** Absolute base for links, e.g. http://127.0.0.1:8787/api/v1 */
	baseUrl: string;
	/** The request's entry in the request log, for what a route records (e.g. the scan it created). */
	log?: RequestLogEntry;
}

export interface HandlerContext extends ApiRequest {
	core: SandboxCore;
	account: AccountRecord;
	params: string[];
}

export type Handler = (ctx: HandlerContext) => ApiResponse | Promise<ApiResponse>;

export const ok = (status: number, body: unknown): ApiResponse => ({ status, body });

export function invalid(ctx: HandlerContext, errors: FieldErrors): ApiResponse {
	return validationResponse(errors, ctx.core.options.errorsShape);
}
