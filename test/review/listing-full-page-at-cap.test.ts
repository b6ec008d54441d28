/**
 * Review of "a full page is never the end" (listingPages.ts `isEndPage`) at the page caps, from
 * outside. Since a full page no longer ends a listing by its `meta`, a listing whose last page is
 * the cap's last page (exactly 400 full pages, 10,000 scans; the poll trigger's activation window
 * of 40 pages, 1,000 scans) could not be told from a longer one: Get Many Return All over exactly
 * 10,000 scans failed with "The listing has more than 400 pages", which is false and breaks
 * README's "Return All up to 10,000 scans"; the activation over exactly 1,000 recent scans warned
 * that older unfinished scans are not followed when there are none.
 *
 * Fixed (listingReader.ts): past a full page `maxPages`, one page is read alone; the cap applies
 * only when it shows a record not read before.
 */
import { PollContext } from 'n8n-core';

import { jsonOf, run, useSandbox } from '../node/helpers';
import { PollHarness } from '../support/poll-harness';
import { DEFAULT_API_KEY } from '../../sandbox/server';

jest.setTimeout(120_000);
const sb = useSandbox();
afterEach(() => jest.restoreAllMocks());

const pageReads = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'GET' && r.path === '/scans').length;

test('exactly 10,000 scans (400 full pages): Get Many Return All outputs all of them', async () => {
	sb.get().control.seedScans({ count: 10_000, status: 'processing' });
	const result = await run(sb.env(), { resource: 'scan', operation: 'getAll', returnAll: true });
	expect(result.error?.message).toBeUndefined();
	expect(jsonOf(result)).toHaveLength(10_000);
	expect(pageReads()).toBe(401);
});

test('10,001 scans: Get Many Return All still fails at the cap, outputting nothing', async () => {
	sb.get().control.seedScans({ count: 10_001, status: 'processing' });
	const result = await run(sb.env(), { resource: 'scan', operation: 'getAll', returnAll: true });
	expect(result.error?.message).toMatch(/more than 400 pages/);
});

async function activationWarnings(count: number): Promise<string[]> {
	const warn = jest.fn();
	jest
		.spyOn(PollContext.prototype, 'logger', 'get')
		.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
	sb.get().control.seedScans({ count, status: 'processing' });
	const trigger = await PollHarness.create({
		parameters: { events: ['scan.completed', 'scan.failed'] },
		env: { baseUrl: sb.get().baseUrl, apiKey: DEFAULT_API_KEY },
	});
	await trigger.activate();
	return warn.mock.calls.map(([message]) => String(message));
}

test('activation over exactly 1,000 recent scans (40 full pages): no "not followed" warning', async () => {
	const warnings = await activationWarnings(1_000);
	expect(warnings.filter((w) => w.includes('are not followed'))).toEqual([]);
	expect(pageReads()).toBe(41);
});

test('activation over 1,001 recent scans: the window is full, and the warning says so', async () => {
	const warnings = await activationWarnings(1_001);
	expect(warnings.filter((w) => w.includes('newest 1000 scans'))).toHaveLength(1);
});
