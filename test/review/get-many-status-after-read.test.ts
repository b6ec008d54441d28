/**
 * Review of Get Many's reads by ID (brief listed records, getAll.operation.ts) with a status
 * filter from outside: a failed scan processed again (completed) between the listing and its
 * GET /scans/{id} is output as completed, under Filters → Status "Failed" ("Only scans in this
 * status"). Under whole listed records the same run outputs it as failed; a scan that left the
 * status during the read may be left out (issue 31 §3, invariant 10), never output in another.
 */
import { jsonOf, run, useSandbox } from '../node/helpers';

const sb = useSandbox();

test('brief records, Status Failed, one of 3 failed scans processed again before it is read by ID: every output scan is failed', async () => {
	const control = sb.get().control;
	control.reset({ listedScans: 'brief' });
	const failed = control.seedScans({ count: 3, status: 'failed' });
	control.atRequest(
		0,
		{ method: 'GET', path: '^/scans/\\d+$' },
		{ reprocess: { ids: [failed[1]], outcome: 'completed' } },
	);
	const result = await run(sb.env(), {
		resource: 'scan',
		operation: 'getAll',
		returnAll: true,
		filters: { status: 'failed' },
	});
	expect(result.error).toBeUndefined();
	const out = jsonOf(result);
	expect(control.getScan(failed[1])?.status).toBe('completed');
	expect(out.map((scan) => Number(scan.id))).toEqual(
		expect.arrayContaining([failed[0], failed[2]]),
	);
	expect(out.map((scan) => `${String(scan.id)} ${String(scan.status)}`)).toEqual(
		out.map((scan) => `${String(scan.id)} failed`),
	);
});
