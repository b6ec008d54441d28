/**
 * A simulated Document Scanning service for the property tests of listings (issue 25 §8): what
 * the spec allows, not only scans added at the top.
 *
 * - scans have growing IDs, a template and a status that moves forward (uploaded → processing →
 *   completed / validation_failed / failed), and a finished scan may be processed again (it takes
 *   any final status); every change gives the scan a new `updated_at`, a minute later than every
 *   one before it; the scans at the start were last changed before, `initial.ties`
 *   of them in the same second;
 * - a scan may be hidden from listings and become visible later (IDs visible out of order);
 * - `GET /scans` filters by status and template, newest first, 25 a page, as a bare array or
 *   `{data, meta}`; a page past the end is empty, 404, 422, the last page again, or `page` is
 *   ignored altogether;
 * - before the n-th request is served, `events[n]` happens (new scans, hidden or not; scans
 *   revealed; statuses moved on), and requests wait `delays[n]` event-loop turns, so pages read
 *   side by side are served in any order.
 *
 * `watch()` tells, for the requests served since, which scans matched a filter at every one of
 * them ("matched throughout") and which at any.
 */
import type { IDataObject } from 'n8n-workflow';

export const PAGE = 25;
export const STATUSES = ['uploaded', 'processing', 'completed', 'validation_failed', 'failed'];
export type PageEnd = 'empty' | '404' | '422' | 'last' | 'ignore';

export interface Scan {
	id: number;
	template: number;
	status: string;
	visible: boolean;
	/** When it last changed, in minutes (listed as `updated_at`). */
	updated: number;
}

export interface ServiceEvent {
	/** New scans at the top: their status and whether they are hidden for now. */
	create: Array<{ status: number; hidden: boolean; template: number }>;
	/** Indexes (mod the number of scans) of hidden scans to reveal. */
	reveal: number[];
	/** Indexes (mod the number of scans) of scans whose status moves one step on (a finished one: processed again). */
	advance: number[];
}

export interface ServiceSpec {
	/** Scans at the start: `count` of them, statuses and templates cycling through `mix`. */
	initial: { count: number; mix: number[]; ties?: number };
	events: ServiceEvent[];
	delays: number[];
	envelope: 'data' | 'bare';
	pageEnd: PageEnd;
	/** Whether answers carry the service's time (`Date`). */
	date?: boolean;
}

const FINAL = new Set(['completed', 'validation_failed', 'failed']);
const minute = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();

function next(status: string, pick: number): string {
	if (status === 'uploaded') return 'processing';
	return ['completed', 'validation_failed', 'failed'][pick % 3];
}

async function ticks(n: number) {
	for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

export interface Filter {
	status?: string;
	template?: number;
}

export function matches(scan: Scan, filter: Filter): boolean {
	return (
		scan.visible &&
		(filter.status === undefined || scan.status === filter.status) &&
		(filter.template === undefined || scan.template === filter.template)
	);
}

export class Service {
	readonly scans: Scan[] = [];
	/** Requests served so far. */
	served = 0;
	/** How many records each listing served held (all pages of it); `unfiltered`: without filters. */
	readonly sizes = new Set<number>();
	readonly unfiltered = new Set<number>();
	private requested = 0;
	/** The service's clock (minutes): one more at every change. */
	private clock = 0;

	/** The service's time now, as its `Date` header says it. */
	date(): string {
		return new Date(Date.parse(minute(this.clock))).toUTCString();
	}
	private watchers: Array<{ filter: Filter; always?: Set<number>; ever: Set<number> }> = [];

	constructor(private readonly spec: ServiceSpec) {
		const { count, mix } = spec.initial;
		for (let i = 0; i < count; i++) {
			const pick = mix[i % mix.length] ?? 0;
			this.add({ status: pick, hidden: false, template: 1 + (Math.floor(pick / 3) % 2) });
			this.scans[i].updated = -Math.ceil((count - i) / (spec.initial.ties ?? 1));
		}
	}

	private add(input: { status: number; hidden: boolean; template: number }): void {
		this.scans.push({
			id: this.scans.length + 1,
			template: input.template,
			status: STATUSES[input.status % 3],
			visible: !input.hidden,
			updated: ++this.clock,
		});
	}

	/** Applies event `n` (if any): the state the next request is served from. */
	apply(event: ServiceEvent | undefined): void {
		if (!event) return;
		for (const scan of event.create) this.add(scan);
		const count = this.scans.length;
		if (count === 0) return;
		for (const index of event.reveal) {
			const hidden = this.scans.filter((s) => !s.visible);
			if (hidden.length) hidden[index % hidden.length].visible = true;
		}
		for (const index of event.advance) {
			const scan = this.scans[index % count];
			scan.status = next(scan.status, index);
			scan.updated = ++this.clock;
		}
	}

	/** Starts recording which scans match `filter` at every request served from now on. */
	watch(filter: Filter): { always: () => Set<number>; ever: Set<number> } {
		const watcher: { filter: Filter; always?: Set<number>; ever: Set<number> } = {
			filter,
			ever: new Set(),
		};
		this.watchers.push(watcher);
		return { always: () => watcher.always ?? new Set(), ever: watcher.ever };
	}

	private record(): void {
		for (const watcher of this.watchers) {
			const now = new Set(this.scans.filter((s) => matches(s, watcher.filter)).map((s) => s.id));
			for (const id of now) watcher.ever.add(id);
			watcher.always = watcher.always
				? new Set([...watcher.always].filter((id) => now.has(id)))
				: now;
		}
	}

	/** GET /scans?page&status&template_id → { statusCode, body }. */
	async list(query: IDataObject): Promise<{ statusCode: number; body: unknown }> {
		await ticks(this.spec.delays[this.requested++ % this.spec.delays.length] ?? 0);
		this.apply(this.spec.events[this.served]);
		this.served++;
		this.record();
		const filter: Filter = {
			status: query.status === undefined ? undefined : String(query.status),
			template: query.template_id === undefined ? undefined : Number(query.template_id),
		};
		const all = this.scans
			.filter((s) => matches(s, filter))
			.sort((a, b) => b.id - a.id)
			.map((s) => ({
				id: s.id,
				status: s.status,
				template_id: s.template,
				updated_at: minute(s.updated),
			}));
		this.sizes.add(all.length);
		if (filter.status === undefined && filter.template === undefined)
			this.unfiltered.add(all.length);
		const lastPage = Math.max(1, Math.ceil(all.length / PAGE));
		let page = Number(query.page ?? 1);
		if (this.spec.pageEnd === 'ignore') page = 1;
		if (page > lastPage) {
			if (this.spec.pageEnd === '404' || this.spec.pageEnd === '422')
				return { statusCode: Number(this.spec.pageEnd), body: { error: 'x', message: 'x' } };
			if (this.spec.pageEnd === 'last') page = lastPage;
		}
		const items = all.slice((page - 1) * PAGE, page * PAGE);
		if (this.spec.envelope === 'bare') return { statusCode: 200, body: items };
		return {
			statusCode: 200,
			body: {
				data: items,
				meta: { current_page: page, last_page: lastPage, per_page: PAGE, total: all.length },
			},
		};
	}

	/** GET /scans/{id} → the scan (visible or not), or 404. */
	get(id: number): { statusCode: number; body: unknown } {
		const scan = this.scans[id - 1];
		if (!scan) return { statusCode: 404, body: { error: 'not_found', message: 'x' } };
		return { statusCode: 200, body: { id: scan.id, status: scan.status } };
	}

	isFinal(id: number): boolean {
		return FINAL.has(this.scans[id - 1]?.status);
	}
}
