/**
 * Review of the clamping test (paging.ts `pagesUnfiltered`) from outside: a filtered Get Many
 * against a server that ignores `page` (bare arrays: no `meta` to tell) asks the listing without
 * filters whether the server pages: page 2 holding a record page 1 does not is taken as proof.
 * Another client's upload between those two reads puts a new scan on "page 2" (page 1 again, one
 * newer): the server is taken for one that clamps, and Get Many outputs page 1's 25 of 40
 * matching scans with no error.
 */
import { jsonOf, run, useSandbox } from '../node/helpers';

const sb = useSandbox();

test('ignored page, 40 completed scans, another client uploads while the node reads: the "ignores the page parameter" error, not 25 scans', async () => {
	const control = sb.get().control;
	control.reset({ envelope: 'bare' });
	control.setListing({ ignorePage: true });
	control.seedScans({ count: 40, status: 'completed' });
	// GET /scans in order: filtered page 1, pages 2-5 side by side, page 1 again, then the
	// unfiltered page 1 and page 2. The upload lands before the unfiltered page 2 is answered.
	control.atRequest(7, { method: 'GET', path: '^/scans$' }, { uploads: { count: 1 } });
	const result = await run(sb.env(), {
		resource: 'scan',
		operation: 'getAll',
		returnAll: true,
		filters: { status: 'completed' },
	});
	const lines = control.requests().map((r) => `${r.path} ${JSON.stringify(r.query)}`);
	expect(lines.filter((l) => l.startsWith('/scans {')).length).toBeGreaterThanOrEqual(8);
	expect({ error: result.error?.message, output: jsonOf(result).length }).toEqual({
		error: expect.stringMatching(/seems to ignore the page parameter/),
		output: 0,
	});
});
