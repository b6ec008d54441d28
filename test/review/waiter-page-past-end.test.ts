/**
 * Review of the waiter (waiting/requests.ts `readStatuses`) once a full page no longer ends a
 * listing: with every page it read full and a waited-for scan not listed (visible late), it
 * reads the page past them, which a service may answer 404. That answer failed the whole round,
 * and the poller read every waiting scan by ID instead of taking the listed ones: more requests,
 * nothing lost. A 404 or 422 past page 1 is the end of the listing now, as for every listing.
 */
import { jsonOf, run, uploadParams, useSandbox, withoutLimitCheck } from '../node/helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox({ processingDelayMs: 50 });
const WAIT = { pollInterval: 0.2, maxPollInterval: 0.5, waitTimeout: 20 };

test('a page past the end answered 404 ends the round: the listed scans are taken as listed, only the one not listed is read by ID', async () => {
	const control = sb.get().control;
	control.setListing({ pageEnd: '404' });
	control.seedScans({ count: 23, template_id: 1 }); // scans 1-23; the uploads make 24, 25, 26
	control.hideScans([26]); // 24 and 25 fill page 1 with the 23; 26 is listed late
	const pending = run(
		sb.env(),
		uploadParams({ waitForCompletion: true, options: WAIT }),
		[24, 25, 26].map((n) => binaryItem(pdfBytes(`late ${n}`), `late-${n}.pdf`, 'application/pdf')),
	);
	const result = await pending;
	expect(result.error).toBeUndefined();
	expect(jsonOf(result).map((scan) => scan.id)).toEqual([24, 25, 26]);
	const readById = (id: number) =>
		withoutLimitCheck(control.requests()).filter(
			(r) => r.method === 'GET' && r.path === `/scans/${id}`,
		);
	expect({ 24: readById(24).length, 25: readById(25).length }).toEqual({ 24: 0, 25: 0 });
	expect(readById(26).length).toBeGreaterThan(0);
	expect(
		withoutLimitCheck(control.requests()).some(
			(r) => r.path === '/scans' && r.query.page === '2' && r.status === 404,
		),
	).toBe(true);
});
