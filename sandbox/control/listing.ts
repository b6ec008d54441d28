/**
 * Control of how `GET /scans` behaves (engine/listing-behaviour.ts) and of changes that happen
 * while a listing is read: page ends, a server that ignores `page`, scans visible late, status
 * changes (a scan finishing between two pages), statuses the API does not list. In process as
 * `sandbox.control.*`, over HTTP under `/__sandbox/...` (routes below; docs/sandbox.md).
 */
import type { IncomingMessage } from 'node:http';
import { ApiResponse } from '../api/http';
import { route, Route } from '../api/router';
import { SandboxCore } from '../engine/core';
import type { ListingBehaviourSpec } from '../engine/listing-behaviour';
import { applyResult } from '../engine/processing';
import { SCAN_STATUSES, ScanStatus, SeedScansInput } from '../types';

/** What happens when a chosen listing request arrives, before it is answered. */
export interface ListingEvent {
	/** Count only the requests for this page (e.g. 2: when page 2 is requested). */
	page?: number;
	/** Scans to create, as `seedScans` does. */
	create?: SeedScansInput;
	/** Scans that take this status (e.g. `processing` scans that finish as `completed`). */
	status?: { ids: number[]; status: string };
	/** Hidden scans that become visible. */
	reveal?: number[];
}

export interface ListingControl {
	/** Sets how GET /scans ends and pages (`pageEnd`, `ignorePage`); keys left out stay. Cleared by reset. */
	setListing(spec: ListingBehaviourSpec): void;
	/** The listing behaviour and the hidden scans. */
	listing(): Required<ListingBehaviourSpec> & { hidden: number[] };
	/** Listings leave these scans out until they are revealed (GET /scans/{id} still finds them). */
	hideScans(ids: number[]): void;
	revealScans(ids: number[]): void;
	/**
	 * Gives a scan a status now: a listed one with its result (as `seedScans` does; no webhook),
	 * or one the API does not list (e.g. `cancelled`), shown as given while processing stops.
	 */
	setScanStatus(id: number, status: string): void;
	/**
	 * Runs `event` when the GET /scans request after the next `afterListRequests` ones arrives
	 * (with `event.page`: counting the requests for that page only).
	 */
	duringListing(afterListRequests: number, event: ListingEvent): void;
}

export function createListingControl(
	core: SandboxCore,
	seedScans: (input: SeedScansInput) => number[],
): ListingControl {
	const control: ListingControl = {
		setListing: (spec) => core.listing.set(spec),
		listing: () => core.listing.describe(),
		hideScans: (ids) => core.listing.hide(ids),
		revealScans: (ids) => core.listing.reveal(ids),
		setScanStatus: (id, status) => {
			const scan = core.store.scan(id);
			if (!scan) throw new Error(`Scan ${id} not found`);
			if (typeof status !== 'string' || status === '')
				throw new Error('status must be a non-empty string');
			if ((SCAN_STATUSES as readonly string[]).includes(status)) {
				delete scan.shownStatus;
				const template = core.store.template(scan.templateId);
				applyResult(scan, template?.extractionMode ?? 'scalar', status as ScanStatus);
			} else {
				scan.shownStatus = status;
			}
			core.store.touch(scan);
		},
		duringListing: (afterListRequests, event) => {
			if (!Number.isInteger(afterListRequests) || afterListRequests < 0)
				throw new Error('afterListRequests must be a non-negative integer');
			const { create, status, reveal, page } = event;
			if (page !== undefined && (!Number.isSafeInteger(page) || page < 1))
				throw new Error('page must be a page number');
			if (status !== undefined)
				for (const id of status.ids ?? [])
					if (!core.store.scan(id)) throw new Error(`Scan ${id} not found`);
			core.onListingRequest(
				afterListRequests,
				() => {
					if (create) seedScans(create);
					if (status) for (const id of status.ids) control.setScanStatus(id, status.status);
					if (reveal) control.revealScans(reveal);
				},
				page,
			);
		},
	};
	return control;
}

type Body = Record<string, unknown>;
type Handler = (body: Body, params: string[], req: IncomingMessage) => ApiResponse;

const ok = (body: unknown): ApiResponse => ({ status: 200, body });

/** The HTTP routes (below /__sandbox) of the listing control. */
export function listingRoutes(control: ListingControl): Array<Route<Handler>> {
	const ids = (body: Body) => (body.ids ?? []) as number[];
	return [
		route<Handler>('GET', '/listing', () => ok(control.listing())),
		route<Handler>('POST', '/listing', (body) => {
			control.setListing(body as ListingBehaviourSpec);
			return ok(control.listing());
		}),
		route<Handler>('POST', '/scans/hide', (body) => {
			control.hideScans(ids(body));
			return ok(control.listing());
		}),
		route<Handler>('POST', '/scans/reveal', (body) => {
			control.revealScans(ids(body));
			return ok(control.listing());
		}),
		route<Handler>('POST', '/scans/:id/status', (body, [id]) => {
			control.setScanStatus(Number(id), String(body.status ?? ''));
			return ok({ id: Number(id), status: body.status });
		}),
		route<Handler>('POST', '/during-listing', (body) => {
			control.duringListing(Number(body.afterListRequests ?? 0), body as ListingEvent);
			return { status: 201, body: { queued: true } };
		}),
	];
}
