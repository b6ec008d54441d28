/**
 * Other clients at work while a node runs, scheduled against the node's own requests
 * (`atRequest`), and scans the service processes again (`reprocessScan`); requests held by a
 * `hold` fault are let go by `releaseHeld`. In process as `sandbox.control.*`, over HTTP under
 * `/__sandbox/...` (routes below; docs/sandbox.md).
 */
import type { IncomingMessage } from 'node:http';
import { ApiResponse } from '../api/http';
import { route, Route } from '../api/router';
import { SandboxCore } from '../engine/core';
import { applyResult } from '../engine/processing';
import { AccountRecord, DEFAULT_API_KEY } from '../engine/records';
import type { RequestMatch } from '../engine/request-hooks';
import { OUTCOMES, Outcome, ScanStatus, SeedScansInput } from '../types';

/** What other clients of an account do at one moment. */
export interface OtherActivity {
	apiKey?: string;
	/**
	 * Another client uploads `count` documents: charged and counted in the rolling hour;
	 * `completed` (default) at once, or `processing`: they finish after the processing delay, as
	 * any upload does (webhook deliveries included).
	 */
	uploads?: { count: number; template_id?: number; status?: 'completed' | 'processing' };
	/** Another client takes every upload slot left in the rolling hour. */
	fillHour?: boolean;
	/** Another client uses this much credit. */
	credits?: number;
	/** Scans created as `seedScans` creates them. */
	create?: SeedScansInput;
	/** Finished scans the service processes again (`reprocessScan`). */
	reprocess?: { ids: number[]; outcome: Outcome };
}

export interface ActivityControl {
	/** Runs `activity` when the API request matching `match` after the next `after` ones arrives, before it is handled. */
	atRequest(after: number, match: RequestMatch, activity: OtherActivity): void;
	/** Forgets the activities `atRequest` queued that have not run yet. */
	clearActivity(): void;
	/** Runs `activity` now. */
	otherClients(activity: OtherActivity): void;
	/**
	 * A finished scan processed again: it takes `outcome` with new data (and `updated_at`), and the
	 * event of its new status is sent again to the account's webhooks. A scan that fails gives its
	 * credit back.
	 */
	reprocessScan(id: number, outcome: Outcome): ScanStatus;
	/** Lets requests held by a `hold` fault go on (the oldest `count`, default all); returns how many. */
	releaseHeld(count?: number): number;
	/** How many requests a `hold` fault holds now. */
	heldRequests(): number;
}

export function createActivityControl(
	core: SandboxCore,
	seedScans: (input: SeedScansInput) => number[],
): ActivityControl {
	const { store } = core;
	const accountFor = (apiKey: string = DEFAULT_API_KEY): AccountRecord => {
		const account = store.accountByKey(apiKey);
		if (!account) throw new Error('Unknown API key');
		return account;
	};

	const upload = (account: AccountRecord, templateId: number | undefined, count: number): void => {
		const template = store.usableTemplate(
			account.id,
			templateId ?? store.activeTemplates(account.id)[0]?.id ?? 0,
		);
		if (!template) throw new Error(`Template ${templateId} not found for this account`);
		for (let i = 0; i < count; i += 1)
			core.processor.start(core.competition.upload(account, template));
	};

	const run = (activity: OtherActivity): void => {
		const account = accountFor(activity.apiKey);
		const { uploads, fillHour, credits, create, reprocess } = activity;
		if (uploads) {
			if (!Number.isInteger(uploads.count) || uploads.count < 0)
				throw new Error('uploads.count must be a non-negative integer');
			const templateId = uploads.template_id ?? store.activeTemplates(account.id)[0]?.id;
			if (uploads.status === 'processing') upload(account, templateId, uploads.count);
			else if (templateId !== undefined)
				core.competition.seedUploads(account, templateId, uploads.count, 0);
		}
		if (fillHour) {
			const left = core.options.rateLimitPerHour - store.uploadsInWindow(account).length;
			const template = store.activeTemplates(account.id)[0];
			if (left > 0 && template) core.competition.seedUploads(account, template.id, left, 0);
		}
		if (credits) account.usedScans = Math.min(account.totalScans, account.usedScans + credits);
		if (create) seedScans({ apiKey: activity.apiKey, ...create });
		if (reprocess) for (const id of reprocess.ids) control.reprocessScan(id, reprocess.outcome);
	};

	const control: ActivityControl = {
		atRequest: (after, match, activity) => {
			accountFor(activity.apiKey);
			core.requestHooks.add(after, match, () => run(activity));
		},
		clearActivity: () => core.requestHooks.clear(),
		otherClients: run,
		reprocessScan: (id, outcome) => {
			const scan = store.scan(id);
			if (!scan) throw new Error(`Scan ${id} not found`);
			if (!(OUTCOMES as readonly string[]).includes(outcome))
				throw new Error(`outcome must be one of ${OUTCOMES.join(', ')}`);
			if (!(OUTCOMES as readonly string[]).includes(scan.status) || scan.shownStatus)
				throw new Error(`Scan ${id} has not finished (status ${scan.shownStatus ?? scan.status})`);
			scan.revision = (scan.revision ?? 0) + 1;
			applyResult(scan, store.template(scan.templateId)?.extractionMode ?? 'scalar', outcome);
			if (outcome === 'failed') store.refund(scan);
			store.touch(scan);
			core.deliverer.dispatchForScan(scan);
			return scan.status;
		},
		releaseHeld: (count) => core.holds.release(count),
		heldRequests: () => core.holds.count,
	};
	return control;
}

type Body = Record<string, unknown>;
type Handler = (body: Body, params: string[], req: IncomingMessage) => ApiResponse;
const ok = (body: unknown): ApiResponse => ({ status: 200, body });

/** The HTTP routes (below /__sandbox) of other clients' activity, reprocessing and held requests. */
export function activityRoutes(control: ActivityControl): Array<Route<Handler>> {
	return [
		route<Handler>('POST', '/at-request', (body) => {
			control.atRequest(
				Number(body.after ?? 0),
				{ method: body.method as string | undefined, path: body.path as string | undefined },
				(body.activity ?? {}) as OtherActivity,
			);
			return { status: 201, body: { queued: true } };
		}),
		route<Handler>('DELETE', '/at-request', () => {
			control.clearActivity();
			return ok({ cleared: true });
		}),
		route<Handler>('POST', '/other-clients', (body) => {
			control.otherClients(body as OtherActivity);
			return ok({ done: true });
		}),
		route<Handler>('POST', '/scans/:id/reprocess', (body, [id]) =>
			ok({ id: Number(id), status: control.reprocessScan(Number(id), body.outcome as Outcome) }),
		),
		route<Handler>('POST', '/held/release', (body) =>
			ok({
				released: control.releaseHeld(body.count === undefined ? undefined : Number(body.count)),
			}),
		),
		route<Handler>('GET', '/held', () => ok({ held: control.heldRequests() })),
	];
}
