import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ApiContext } from '../../../shared/transport';
import { PAGE_SIZE } from '../../../shared/transport';
import { classifyRepeat } from '../../../shared/transport/listingEnds';
import type { Read } from '../../../shared/transport/listingPages';
import { readScanPage } from '../../../shared/transport/paging';
import { createdAtMs } from '../scanPages';

/** The service's rolling window (spec: scans per rolling hour). */
export const HOUR_MS = 60 * 60 * 1000;
/** The service's limit: 200 scans per rolling hour per account. */
export const SERVICE_HOURLY_LIMIT = 200;
/** `created_at` and `Date` show whole seconds: a time shown may be up to a second early. */
export const SECOND_ROUNDING_MS = 1000;

/** The uploads of the account in the rolling hour, on the service's clock. */
export interface HourWindow {
	/** The service's time when the listing was read (its `Date` header; the local clock without one). */
	serverNow: number;
	/** Creation times (service clock, epoch ms) of the scans that may still be in the hour, oldest first. */
	times: number[];
	/** Every scan the count read (newest first): the hour's uploads and the page past them. */
	scans: IDataObject[];
}

/**
 * The scans of one page that may still lie in the hour before `serverNow` (one without a
 * readable `created_at` counts as created now), and whether all are older for certain.
 */
export function inWindow(
	scans: IDataObject[],
	serverNow: number,
): { times: number[]; allOlder: boolean } {
	const cutoff = serverNow - HOUR_MS - SECOND_ROUNDING_MS;
	const times: number[] = [];
	let allOlder = scans.length > 0;
	for (const scan of scans) {
		const at = createdAtMs(scan) ?? serverNow;
		if (at > cutoff) {
			times.push(Math.min(at, serverNow));
			allOlder = false;
		}
	}
	return { times, allOlder };
}

/**
 * Counts the account's uploads of the last rolling hour from GET /scans on the service's clock
 * (`Date` header of page 1), page after page until one holds only older scans or the listing
 * ends. Every client of the account shares the service's 200 an hour, so recent scans still
 * listed after three times that many are an error, not a guess.
 */
export async function readHourWindow(this: ApiContext): Promise<HourWindow> {
	const maxPages = Math.ceil((3 * SERVICE_HOURLY_LIMIT) / PAGE_SIZE) + 2;
	const seen = new Set<unknown>();
	const times: number[] = [];
	const scans: IDataObject[] = [];
	let serverNow = Date.now();
	let before: Read | undefined;
	let last = false;
	const read = async (pageNumber: number): Promise<Read> => {
		const page = await readScanPage(this, {}, pageNumber);
		if (pageNumber === 1 && before === undefined) serverNow = page.serverTime ?? serverNow;
		last = page.last;
		return page.read;
	};
	for (let pageNumber = 1; ; pageNumber++) {
		if (pageNumber > maxPages) throw uncountable(this, times.length);
		const page = await read(pageNumber);
		const fresh = page.items.filter((scan) => {
			if (seen.has(scan.id)) return false;
			seen.add(scan.id);
			return true;
		});
		scans.push(...fresh);
		const found = inWindow(fresh, serverNow);
		times.push(...found.times);
		const done = () => ({ serverNow, times: times.sort((a, b) => a - b), scans });
		if (found.allOlder || last) return done();
		if (fresh.length === 0 && before) {
			// Only scans already read: the last page again (the end), or page 1 for every page (a
			// server that ignores `page`: the hour cannot be counted beyond page 1 unless page 1
			// already reached older scans), or scans pushed down by new ones (read on).
			const kind = await classifyRepeat(page, before, read);
			if (kind === 'clamped') return done();
			if (kind === 'ignored') {
				if (inWindow(before.items, serverNow).times.length < before.items.length) return done();
				throw uncountable(this, times.length);
			}
		}
		before = page;
	}
}

function uncountable(ctx: ApiContext, counted: number): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The scans listing shows more than ${counted} scans created in the last hour, and the node could not count the account's hourly uploads`,
		{
			description: `The service allows ${SERVICE_HOURLY_LIMIT} uploads per rolling hour. So many recent scans mean the listing's creation times or the service's clock (its Date header) are off, or the service answers every page with the first one; no document was uploaded. Check with Scan → Get Many.`,
		},
	);
}
