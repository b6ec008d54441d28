/**
 * Issue 39 §2: answers the spec leaves open (sandbox `setRewrites`, sandbox/engine/rewrites.ts)
 * after the service stored an upload, settings read before any credit is spent, and listed
 * records taken as the scan only when they hold what GET /scans/{id} gives. Through n8n-core's
 * engine against the sandbox.
 */
import type { RewriteSetting } from '../../sandbox/server';
import { FAST_WAIT, jsonOf, LATEST, pairedOf, run, uploadParams, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();
const pdf = (label: string, name = `${label}.pdf`) =>
	binaryItem(pdfBytes(label), name, 'application/pdf');
const onUpload = (rule: RewriteSetting['rule'], value: string): RewriteSetting => ({
	rule,
	value,
	method: 'POST',
	path: '^/scans$',
});
const charged = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.scanId !== undefined)
		.map((r) => r.scanId!);

describe.each([
	['a 302 to the created scan (Post/Redirect/Get)', onUpload('createdStatus', '302')],
	['a 301 to the created scan', onUpload('createdStatus', '301')],
	['a 307 to the created scan, followed with the upload', onUpload('redirectAfter', '307')],
	['a 204 without a body', onUpload('createdStatus', '204')],
	['an HTML page on its 201', onUpload('body', 'html')],
])('a stored upload answered with %s', (_what, rewrite) => {
	test('with the content fingerprint: the scan is found and output, one credit', async () => {
		sb.get().control.setRewrites([rewrite]);
		const result = await run(sb.env(), uploadParams(), [pdf('prg')], false, LATEST);
		expect(result.error).toBeUndefined();
		const [id] = charged();
		expect(jsonOf(result)).toEqual([expect.objectContaining({ id, original_filename: 'prg.pdf' })]);
		expect(sb.get().control.account().used_scans).toBe(1);
	});

	test('without it (version 1, exact name), Continue On Fail: outcome unknown naming the scan, never "no credit was used"', async () => {
		sb.get().control.setRewrites([rewrite]);
		const result = await run(sb.env(), uploadParams(), [pdf('prg-v1')], true, 1);
		const [id] = charged();
		const [item] = jsonOf(result);
		expect(item).toMatchObject({ outcomeUnknown: true, candidateScanIds: [id] });
		expect(JSON.stringify(item)).not.toMatch(/no (scan )?credit was used/i);
	});
});

describe('"Wait for Completion" by expression is read before the first upload', () => {
	const params = uploadParams({
		waitForCompletion: '={{ $json.doc === 1 ? $("No Such Node").item.json.choice : true }}',
		options: FAST_WAIT,
	});
	const items = () =>
		[0, 1, 2].map((doc) => ({
			...pdf(`expr-${doc}`),
			json: { doc },
		}));

	test('with Continue On Fail: the item whose setting fails is not uploaded, the others are', async () => {
		const result = await run(sb.env(), params, items(), true, LATEST);
		expect(pairedOf(result)).toEqual([0, 1, 2]);
		const [first, failed, third] = jsonOf(result);
		expect(failed.error).toMatch(
			/^Item 1: the setting "Wait for Completion" or its options could not be read/,
		);
		expect(failed.description).toMatch(/no credit was used/);
		expect([first.status, third.status]).toEqual(['completed', 'completed']);
		expect(charged()).toHaveLength(2);
	});

	test('without it: the node fails before any upload', async () => {
		const result = await run(sb.env(), params, items(), false, LATEST);
		expect(result.error?.message).toMatch(/^Item 1: the setting "Wait for Completion"/);
		expect(charged()).toEqual([]);
	});
});

describe('a listed record is the scan only when it holds what GET /scans/{id} gives', () => {
	test.each(['null', 'missing', 'text'])(
		'validation_failed listed with its data %s: Return Existing Scan outputs the scan as read by ID',
		async (value) => {
			sb.get().control.setNextOutcomes(['validation_failed']);
			const file = pdf('vf');
			const first = await run(
				sb.env(),
				uploadParams({ waitForCompletion: true, options: FAST_WAIT }),
				[file],
				false,
				LATEST,
			);
			const [scan] = jsonOf(first);
			expect(scan).toMatchObject({ status: 'validation_failed' });
			expect(scan.extracted_data).toEqual(expect.any(Object));
			sb.get().control.setRewrites([
				{ rule: 'unpromisedFields', value, method: 'GET', path: '^/scans$' },
			]);
			const again = await run(
				sb.env(),
				uploadParams({ options: { onDuplicate: 'returnExisting' } }),
				[file],
				false,
				LATEST,
			);
			expect(again.error).toBeUndefined();
			const [existing] = jsonOf(again);
			expect(existing).toMatchObject({ id: scan.id, status: 'validation_failed' });
			expect(existing.extracted_data).toEqual(scan.extracted_data);
			expect(existing.validation_errors).toEqual(scan.validation_errors);
		},
	);
});
