/** HTTP access to the control surface under /__sandbox (JSON bodies, no API key, no envelope). */
import type { IncomingMessage } from 'node:http';
import { readCredentials } from '../api/auth';
import { SandboxControl } from './control';
import { activityRoutes } from './activity';
import { bookingRoutes } from './bookings';
import { listingRoutes } from './listing';
import {
	ApiResponse,
	BodyTooLargeError,
	errorResponse,
	InvalidJsonError,
	isPlainObject,
	parsePositiveInt,
	readJson,
} from '../api/http';
import type { SeedUploadsInput, TakeAfterInput } from '../engine/competition';
import { matchRoute, route } from '../api/router';
import {
	CreateAccountInput,
	CreateTemplateInput,
	FaultSpec,
	Outcome,
	SandboxOptions,
	SeedScansInput,
	WebhookEvent,
} from '../types';

export const CONTROL_PREFIX = '/__sandbox';

type Body = Record<string, unknown>;
type ControlHandler = (
	body: Body,
	params: string[],
	req: IncomingMessage,
) => ApiResponse | Promise<ApiResponse>;

const ok = (body: unknown): ApiResponse => ({ status: 200, body });
const created = (body: unknown): ApiResponse => ({ status: 201, body });

function idParam(raw: string): number {
	const id = parsePositiveInt(raw);
	if (id === undefined) throw new Error(`Not an id: ${raw}`);
	return id;
}

function found<T>(value: T | undefined, what: string): ApiResponse {
	return value === undefined ? errorResponse(404, `${what} not found.`) : ok(value);
}

function buildRoutes(control: SandboxControl) {
	const bookings = bookingRoutes();
	return [
		route<ControlHandler>('POST', '/reset', (body) => {
			control.reset(body as Partial<SandboxOptions>);
			bookings.clear();
			return ok({ reset: true, options: control.options() });
		}),
		route<ControlHandler>('GET', '/options', () => ok(control.options())),
		route<ControlHandler>('POST', '/options', (body) => {
			control.setOptions(body as Partial<SandboxOptions>);
			return ok(control.options());
		}),
		route<ControlHandler>('POST', '/accounts', (body) =>
			created(control.createAccount(body as unknown as CreateAccountInput)),
		),
		route<ControlHandler>('GET', '/account', (_body, _params, req) =>
			ok(control.account(readCredentials(req.headers).key)),
		),
		route<ControlHandler>('POST', '/templates', (body) =>
			created(control.createTemplate(body as unknown as CreateTemplateInput)),
		),
		route<ControlHandler>('POST', '/scans', (body) =>
			created({ ids: control.seedScans(body as unknown as SeedScansInput) }),
		),
		route<ControlHandler>('POST', '/scans/during-listing', (body) => {
			control.createScansDuringListing(
				Number(body.afterListRequests ?? 0),
				(body.scans ?? {}) as unknown as SeedScansInput,
			);
			return created({ queued: true });
		}),
		route<ControlHandler>('POST', '/uploads', (body) =>
			created({ ids: control.seedUploads(body as unknown as SeedUploadsInput) }),
		),
		route<ControlHandler>('POST', '/credits', (body, _params, req) =>
			ok(
				control.setCredits(
					Number(body.remaining),
					(body.apiKey as string | undefined) ?? readCredentials(req.headers).key,
				),
			),
		),
		route<ControlHandler>('POST', '/take-after-uploads', (body) => {
			control.takeAfterUploads(body as unknown as TakeAfterInput);
			return created({ added: true });
		}),
		route<ControlHandler>('GET', '/scans/:id', (_body, [id]) =>
			found(control.getScan(idParam(id)), `Scan ${id}`),
		),
		route<ControlHandler>('POST', '/scans/:id/reviewed-data', (body, [id]) => {
			control.setReviewedData(idParam(id), (body.reviewed_data ?? null) as Body | null);
			return ok(control.getScan(idParam(id)));
		}),
		route<ControlHandler>('POST', '/next-outcomes', (body) => {
			control.setNextOutcomes(body.outcomes as Outcome[]);
			return ok({ outcomes: body.outcomes });
		}),
		route<ControlHandler>('POST', '/hold', (body) => {
			control.hold(body.hold as boolean);
			return ok({ hold: body.hold });
		}),
		route<ControlHandler>('POST', '/scans/:id/step', (_body, [id]) =>
			ok({ id: idParam(id), status: control.step(idParam(id)) }),
		),
		route<ControlHandler>('POST', '/faults', (body) => {
			control.addFault(body as unknown as FaultSpec);
			return created({ added: true });
		}),
		route<ControlHandler>('DELETE', '/faults', () => {
			control.clearFaults();
			return ok({ cleared: true });
		}),
		route<ControlHandler>('POST', '/clock', (body) =>
			ok({ now: control.advanceClock(Number(body.advanceMs)) }),
		),
		route<ControlHandler>('GET', '/requests', () => ok(control.requests())),
		route<ControlHandler>('DELETE', '/requests', () => {
			control.clearRequests();
			return ok({ cleared: true });
		}),
		route<ControlHandler>('GET', '/deliveries', () => ok(control.deliveries())),
		route<ControlHandler>('DELETE', '/deliveries', () => {
			control.clearDeliveries();
			return ok({ cleared: true });
		}),
		route<ControlHandler>('POST', '/deliveries/wait', async (body) =>
			ok(
				await control.waitForDeliveries(
					Number(body.count),
					body.timeoutMs === undefined ? undefined : Number(body.timeoutMs),
				),
			),
		),
		route<ControlHandler>('POST', '/deliveries/repeat', async (body) =>
			ok(
				await control.repeatDelivery({
					index: body.index === undefined || body.index === null ? undefined : Number(body.index),
					restamp: body.restamp as boolean | undefined,
					copies: body.copies === undefined ? undefined : Number(body.copies),
				}),
			),
		),
		route<ControlHandler>('POST', '/deliver', async (body) =>
			ok(
				await control.deliver(
					Number(body.webhookId),
					body.event as WebhookEvent,
					body.scanId === undefined || body.scanId === null ? undefined : Number(body.scanId),
				),
			),
		),
		route<ControlHandler>('GET', '/webhooks/:id', (_body, [id]) =>
			found(control.getWebhook(idParam(id)), `Webhook ${id}`),
		),
		route<ControlHandler>('DELETE', '/webhooks/:id', (_body, [id]) =>
			ok({ deleted: control.deleteWebhookDirect(idParam(id)) }),
		),
		route<ControlHandler>('POST', '/webhooks/:id/deactivate', (_body, [id]) => {
			control.deactivateWebhook(idParam(id));
			return ok(control.getWebhook(idParam(id)));
		}),
		...listingRoutes(control),
		...activityRoutes(control),
		...bookings.routes,
	];
}

/** Returns the handler for paths below /__sandbox (the prefix already removed). Thrown errors become 400. */
export function createControlHandler(
	control: SandboxControl,
): (req: IncomingMessage, path: string) => Promise<ApiResponse> {
	const routes = buildRoutes(control);
	return async (req, path) => {
		const method = req.method ?? 'GET';
		const match = matchRoute(routes, method, path);
		if (match.kind === 'not_found')
			return errorResponse(404, `No control route ${method} ${CONTROL_PREFIX}${path}.`);
		if (match.kind === 'method_not_allowed') {
			return errorResponse(405, `Allowed: ${match.allow.join(', ')}.`, {
				Allow: match.allow.join(', '),
			});
		}
		try {
			const body = await readJson(req);
			if (!isPlainObject(body))
				return errorResponse(400, 'The control request body must be a JSON object.');
			return await match.handler(body, match.params, req);
		} catch (err) {
			if (err instanceof BodyTooLargeError) return errorResponse(413, err.message);
			if (err instanceof InvalidJsonError) return errorResponse(400, err.message);
			return errorResponse(400, (err as Error).message);
		}
	};
}
