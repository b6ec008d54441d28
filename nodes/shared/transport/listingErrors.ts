import { NodeOperationError } from 'n8n-workflow';

import { forItem } from './errorWording';
import type { ApiContext } from './types';

/**
 * The errors of a listing that cannot be read whole, in the user's words: each says what the
 * server did and what to do. Nothing of a listing cut short is output (no silent loss).
 */

/** Pages kept answering with records already read, or status-filter checks kept failing (listingCoverage.ts). */
export function restless(ctx: ApiContext, path: string, itemIndex?: number): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The listing of ${path} kept moving while it was read; nothing was output${forItem(itemIndex)}`,
		{
			itemIndex,
			description:
				'Several pages in a row held only records already read, or scans listed above a page kept changing status while the pages were checked: the listing changed faster than it could be read. Run the node again when fewer documents are being uploaded or processed.',
		},
	);
}

/** Page 2 held exactly page 1's records, and page 1 read again still did. */
export function pageIgnored(
	ctx: ApiContext,
	path: string,
	records: number,
	itemIndex?: number,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The service answered page 2 of ${path} with the same ${records} records as page 1: it seems to ignore the page parameter; nothing was output${forItem(itemIndex)}`,
		{
			itemIndex,
			description: `Either the service ignores \`page\` (then only the newest ${records} records can be listed: switch Return All off and set Limit to ${records} or less, or narrow the listing with Filters), or it holds exactly these ${records} and repeats its last page past the end (then run the node again once one more record exists).`,
		},
	);
}

/** A page past the end (empty, 404 or 422) although page 1 said the listing has that page. */
export function endContradicted(
	ctx: ApiContext,
	path: string,
	detail: { pageNumber: number; status?: number; pages: number },
	itemIndex?: number,
): NodeOperationError {
	const answer = detail.status === undefined ? 'no records' : `HTTP ${detail.status}`;
	return new NodeOperationError(
		ctx.getNode(),
		`The service answered page ${detail.pageNumber} of ${path} with ${answer} although page 1 said the listing has ${detail.pages} pages; nothing was output${forItem(itemIndex)}`,
		{
			itemIndex,
			description:
				'The service refused a page that exists (perhaps a limit on how deep it pages). Narrow the listing with Filters (status, template), or switch Return All off and set a Limit.',
		},
	);
}
