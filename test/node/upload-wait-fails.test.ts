/**
 * Issue 39 §2: waiting that fails after the upload was charged (a 429 or any failed read of the
 * scan) names the scan, in the item with Continue On Fail, in the stop error without it.
 * Through n8n-core's engine against the sandbox.
 */
import { FAST_WAIT, jsonOf, run, uploadParams, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();
const params = uploadParams({ waitForCompletion: true, options: FAST_WAIT });

function everyReadFails(status: number) {
	sb.get().control.hold(true);
	sb.get().control.addFault({
		method: 'GET',
		path: '^/scans/\\d+$',
		kind: 'status',
		status,
		times: 100,
	});
}
const made = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.status === 201)
		.map((r) => r.scanId!);

describe.each([429, 404])('every read of the scan answers %s', (status) => {
	test('with Continue On Fail: the item names the scan it paid for', async () => {
		everyReadFails(status);
		const result = await run(
			sb.env(),
			params,
			[binaryItem(pdfBytes('a'), 'a.pdf', 'application/pdf')],
			true,
		);
		const [id] = made();
		expect(sb.get().control.getScan(id)?.charged).toBe(true);
		const [out] = jsonOf(result);
		expect(out).toMatchObject({ scan_id: id, httpCode: String(status) });
		expect(out.error).toMatch(new RegExp(`^Item 0: waiting for scan ${id} failed`));
	});

	test('without it: the stop error names the scan', async () => {
		everyReadFails(status);
		const result = await run(sb.env(), params, [
			binaryItem(pdfBytes('b'), 'b.pdf', 'application/pdf'),
		]);
		const [id] = made();
		expect(result.error?.message).toMatch(new RegExp(`scan ${id}\\b`));
	});
});
