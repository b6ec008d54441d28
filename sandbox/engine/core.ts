/** Wires the sandbox's parts together and owns reset/shutdown. Shared by routes, control and server. */
import { VirtualClock } from './clock';
import { Competition } from './competition';
import { Deliverer } from './deliveries';
import { Faults } from './faults';
import { Holds } from './holds';
import { ListingBehaviour } from './listing-behaviour';
import { mergeLiveOptions, mergeOptions, ResolvedOptions } from './options';
import { Processor } from './processing';
import { Rewriter } from './rewrites';
import { RequestHooks } from './request-hooks';
import { Scheduler } from './scheduler';
import { Store } from './state';
import { RequestLogEntry, SandboxOptions } from '../types';

export class SandboxCore {
	readonly clock = new VirtualClock();
	readonly store = new Store(this.clock);
	readonly faults = new Faults();
	/** Answers rewritten within what the documentation leaves open (control `setRewrites`). */
	readonly rewrites = new Rewriter();
	/** Requests held by a `hold` fault until released. */
	readonly holds = new Holds();
	/** What other clients do when chosen API requests arrive (control `atRequest`). */
	readonly requestHooks = new RequestHooks();
	/** How GET /scans pages, ends and hides scans where the API documentation is silent. */
	readonly listing = new ListingBehaviour();
	/** Other clients of an account: their recent uploads, and slots or credit they take mid-batch. */
	readonly competition = new Competition(this.store, this.clock);
	/** Processing steps (cancelled by reset and shutdown). */
	readonly processingTimers = new Scheduler();
	/** Per-request waits such as latency faults (cancelled by shutdown only). */
	readonly requestTimers = new Scheduler();
	readonly deliverer: Deliverer;
	readonly processor: Processor;
	requestLog: RequestLogEntry[] = [];
	/** Actions run when a later GET /scans (listing) request arrives, before it is answered. */
	private listingHooks: Array<{ skip: number; run: () => void; page?: number }> = [];
	private current: ResolvedOptions;

	constructor(private readonly startOptions: ResolvedOptions) {
		this.current = startOptions;
		const options = (): ResolvedOptions => this.current;
		this.deliverer = new Deliverer({ store: this.store, clock: this.clock, options });
		this.processor = new Processor({
			store: this.store,
			scheduler: this.processingTimers,
			options,
			onTerminal: (scan) => this.deliverer.dispatchForScan(scan),
		});
		this.seed();
	}

	get options(): ResolvedOptions {
		return this.current;
	}

	setOptions(partial: Partial<SandboxOptions>): void {
		this.current = mergeLiveOptions(this.current, partial);
	}

	/** Wipes all state and reseeds; options return to the start options, then `partial` applies. */
	reset(partial: Partial<SandboxOptions> = {}): void {
		if (partial.port !== undefined || partial.host !== undefined)
			throw new Error('port and host cannot change on reset');
		const next = mergeOptions(this.startOptions, partial);
		this.stopBackgroundWork('sandbox reset');
		this.current = next;
		this.clock.reset();
		this.faults.clear();
		this.rewrites.clear();
		this.holds.release();
		this.requestHooks.clear();
		this.listing.reset();
		this.listingHooks = [];
		this.competition.reset();
		this.requestLog = [];
		this.store.clear();
		this.seed();
	}

	/**
	 * Runs `run` when the listing request after the next `skip` ones arrives (before it is
	 * answered); with `page`, only requests for that page count.
	 */
	onListingRequest(skip: number, run: () => void, page?: number): void {
		this.listingHooks.push({ skip, run, page });
	}

	/** Called by GET /scans (for `page`) before it reads the store. */
	beforeListing(page?: number): void {
		const counts = (hook: { page?: number }) => hook.page === undefined || hook.page === page;
		const due = this.listingHooks.filter((hook) => counts(hook) && hook.skip === 0);
		this.listingHooks = this.listingHooks.filter((hook) => !due.includes(hook));
		for (const hook of this.listingHooks) if (counts(hook)) hook.skip -= 1;
		for (const hook of due) hook.run();
	}

	shutdown(): void {
		this.stopBackgroundWork('sandbox closed');
		this.holds.release();
		this.requestTimers.cancelAll();
	}

	private stopBackgroundWork(reason: string): void {
		this.processingTimers.cancelAll();
		this.processor.reset();
		this.deliverer.abortAll(reason);
	}

	private seed(): void {
		if (this.current.seed) this.store.seed(this.current.extraApiKeys);
	}
}
