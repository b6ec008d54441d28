/**
 * Faults at any request, and other clients' activity scheduled against the node's requests:
 * drawn as plain data (so a failing case prints as a test), turned into the sandbox's
 * `addFault` and `atRequest` calls. Rare interleavings get weight of their own: an answer lost
 * and then the listing failing, a lost answer while 25 scans arrive between two pages, another
 * client filling the hour after the node's first upload, a redirect to another origin.
 */
import fc from 'fast-check';

import type { OtherActivity } from '../../sandbox/control/activity';
import type { FaultSpec, Sandbox } from '../../sandbox/server';

/** Requests a fault or an activity is scheduled against. */
export type Target = 'upload' | 'listing' | 'scanRead' | 'account' | 'anyGet';

const MATCH: Record<Target, { method: string; path?: string }> = {
	upload: { method: 'POST', path: '^/scans$' },
	listing: { method: 'GET', path: '^/scans$' },
	scanRead: { method: 'GET', path: '^/scans/\\d+$' },
	account: { method: 'GET', path: '^/account$' },
	anyGet: { method: 'GET' },
};

export interface FaultDraw {
	on: Target;
	kind: 'drop' | 'dropAfterCommit' | 'status' | 'redirect' | 'latency';
	status?: number;
	to?: 'same' | 'other';
	retryAfter?: number;
	/** Matching requests let through first. */
	after: number;
	times: number;
}

export interface ActivityDraw {
	on: Target;
	after: number;
	/** `pushDown`: `count` scans of the template made as a listing's page 2 is asked for (`on` unused). */
	what: 'fillHour' | 'uploads' | 'finishing' | 'create' | 'credits' | 'pushDown';
	count: number;
	template: 1 | 2;
}

export function faultSpec(draw: FaultDraw): FaultSpec {
	const spec: FaultSpec = {
		...MATCH[draw.on],
		kind: draw.kind,
		after: draw.after,
		times: draw.times,
	};
	if (draw.status !== undefined) spec.status = draw.status;
	if (draw.to !== undefined) spec.to = draw.to;
	if (draw.kind === 'latency') spec.latencyMs = 30;
	if (draw.retryAfter !== undefined) spec.headers = { 'Retry-After': String(draw.retryAfter) };
	return spec;
}

export function activityOf(draw: ActivityDraw): OtherActivity {
	switch (draw.what) {
		case 'fillHour':
			return { fillHour: true };
		case 'credits':
			return { credits: draw.count };
		case 'uploads':
			return { uploads: { count: draw.count, template_id: draw.template } };
		case 'finishing':
			return { uploads: { count: draw.count, template_id: draw.template, status: 'processing' } };
		default:
			return { create: { count: draw.count, template_id: draw.template } };
	}
}

/** Queues the faults and activities of one run. */
export function schedule(sandbox: Sandbox, faults: FaultDraw[], activity: ActivityDraw[]): void {
	for (const draw of faults) sandbox.control.addFault(faultSpec(draw));
	for (const draw of activity)
		if (draw.what === 'pushDown')
			sandbox.control.duringListing(draw.after, {
				page: 2,
				create: { count: draw.count, template_id: draw.template },
			});
		else sandbox.control.atRequest(draw.after, MATCH[draw.on], activityOf(draw));
}

const small = fc.constantFrom(0, 0, 1, 2, 4);

/** fc.oneof over the choices whose weight is above 0. */
export function oneOfWeighted<T>(
	...choices: Array<{ weight: number; arbitrary: fc.Arbitrary<T> }>
): fc.Arbitrary<T> {
	return fc.oneof(...choices.filter((choice) => choice.weight > 0));
}

const oneFault = (targets: Target[]): fc.Arbitrary<FaultDraw> =>
	fc.oneof(
		fc.record({
			on: fc.constantFrom(...targets),
			kind: fc.constantFrom<FaultDraw['kind']>('drop', 'dropAfterCommit', 'latency'),
			after: small,
			times: fc.constantFrom(1, 1, 2, 3),
		}),
		fc.record({
			on: fc.constantFrom(...targets),
			kind: fc.constant<FaultDraw['kind']>('status'),
			status: fc.constantFrom(500, 503, 429, 402, 404),
			retryAfter: fc.option(fc.constantFrom(0, 1), { nil: undefined }),
			after: small,
			times: fc.constantFrom(1, 2, 4),
		}),
		fc.record({
			on: fc.constantFrom(...targets),
			kind: fc.constant<FaultDraw['kind']>('redirect'),
			status: fc.constantFrom(301, 302, 307, 308),
			to: fc.constantFrom<'same' | 'other'>('same', 'other'),
			after: small,
			times: fc.constant(1),
		}),
	);

/** Faults of one run: none, any, or one of the shapes that meet two mechanisms. */
export const faultsArb = (targets: Target[]): fc.Arbitrary<FaultDraw[]> =>
	oneOfWeighted(
		{ weight: 4, arbitrary: fc.constant([]) },
		{ weight: 4, arbitrary: fc.array(oneFault(targets), { minLength: 1, maxLength: 3 }) },
		{
			weight: targets.includes('upload') ? 2 : 0,
			// An upload's answer lost after it was stored, then the listing that looks for it fails.
			arbitrary: fc
				.record({ after: small, listingAfter: fc.constantFrom(0, 1) })
				.map(({ after, listingAfter }): FaultDraw[] => [
					{ on: 'upload', kind: 'dropAfterCommit', after, times: 1 },
					{ on: 'listing', kind: 'status', status: 503, after: listingAfter, times: 4 },
				]),
		},
		{
			weight: targets.includes('upload') ? 2 : 0,
			arbitrary: fc
				.record({ after: small, times: fc.constantFrom(1, 2, 3) })
				.map(({ after, times }): FaultDraw[] => [
					{ on: 'upload', kind: 'dropAfterCommit', after, times },
				]),
		},
		{
			weight: targets.includes('scanRead') ? 4 : 0,
			// Every read of a scan fails for a while (a 429, a 404, a 5xx): waiting after a charged upload.
			arbitrary: fc
				.record({ status: fc.constantFrom(429, 404, 503), times: fc.constantFrom(2, 6) })
				.map(({ status, times }): FaultDraw[] => [
					{ on: 'scanRead', kind: 'status', status, after: 0, times },
				]),
		},
		{
			weight: 2,
			// The key sent after a redirect to another origin.
			arbitrary: fc
				.record({
					on: fc.constantFrom(...targets.filter((t) => t !== 'upload')),
					status: fc.constantFrom(301, 302, 307, 308),
					after: fc.constantFrom(0, 1),
				})
				.map(({ on, status, after }): FaultDraw[] => [
					{ on, kind: 'redirect', status, to: 'other', after, times: 1 },
				]),
		},
	);

/** Other clients while the node works. */
export const activityArb = (targets: Target[]): fc.Arbitrary<ActivityDraw[]> =>
	oneOfWeighted(
		{ weight: 4, arbitrary: fc.constant([]) },
		{
			weight: 3,
			arbitrary: fc.array(
				fc.record({
					on: fc.constantFrom(...targets),
					after: fc.constantFrom(0, 1, 2, 3),
					what: fc.constantFrom<ActivityDraw['what']>(
						'fillHour',
						'uploads',
						'finishing',
						'create',
						'credits',
					),
					count: fc.constantFrom(1, 3, 25, 30),
					template: fc.constantFrom<1 | 2>(1, 1, 2),
				}),
				{ minLength: 1, maxLength: 2 },
			),
		},
		{
			weight: targets.includes('upload') ? 2 : 0,
			// Another client fills the hour right after the node's first upload.
			arbitrary: fc
				.constantFrom(0, 1)
				.map((after): ActivityDraw[] => [
					{ on: 'upload', after: after + 1, what: 'fillHour', count: 0, template: 2 },
				]),
		},
		{
			weight: targets.includes('listing') ? 2 : 0,
			// 25 or more scans of the template arrive between two page reads.
			arbitrary: fc
				.record({ after: fc.constantFrom(0, 1, 2), count: fc.constantFrom(25, 30) })
				.map(({ after, count }): ActivityDraw[] => [
					{ on: 'listing', after, what: 'create', count, template: 1 },
				]),
		},
	);
