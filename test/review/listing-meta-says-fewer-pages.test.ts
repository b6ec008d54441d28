/**
 * Review of the listing end (listingPages.ts `isEndPage` / `saysLastPage`) under the sandbox's
 * `metaPages` reading ("a count that is off", docs/sandbox.md), from outside: a `meta` that
 * reports fewer pages than the listing holds (e.g. a cached count) ends the listing on a full
 * page. Get Many outputs page 1's 25 of 30 scans with no error; the poll trigger emits 25 of 30
 * new scans and never the other 5. The change made caps apply to pages read, not to pages
 * reported (a count too high); a count too low is still taken at its word.
 *
 * Fixed: a full page is never the end of a listing, whatever `meta` or `links` say
 * (listingPages.ts `isEndPage`); a full last page costs one more read.
 */
import { jsonOf, run, useSandbox } from '../node/helpers';
import { PollHarness } from '../support/poll-harness';
import { DEFAULT_API_KEY } from '../../sandbox/server';

const sb = useSandbox();

test('meta reports 1 page over 30 scans: Get Many (Return All) outputs all 30, or fails', async () => {
	const control = sb.get().control;
	control.setListing({ metaPages: 1 });
	control.seedScans({ count: 30, status: 'completed' });
	const result = await run(sb.env(), { resource: 'scan', operation: 'getAll', returnAll: true });
	expect(result.error !== undefined || jsonOf(result).length === 30).toBe(true);
});

test('meta reports 1 page, 30 scans finish between two polls: the poll trigger emits all 30, or fails', async () => {
	const control = sb.get().control;
	control.setListing({ metaPages: 1 });
	const trigger = await PollHarness.create({
		parameters: { events: ['scan.completed', 'scan.failed'] },
		env: { baseUrl: sb.get().baseUrl, apiKey: DEFAULT_API_KEY },
	});
	await trigger.activate();
	control.seedScans({ count: 30, status: 'completed' });
	let emitted = 0;
	let failed = false;
	for (let poll = 0; poll < 3; poll++)
		emitted += await trigger.poll().then(
			(items) => items?.length ?? 0,
			() => ((failed = true), 0),
		);
	expect(failed || emitted === 30).toBe(true);
});
