/**
 * Review of issue 39 (area 2): every per-item setting of Upload, by expression failing for one
 * item (item 1 of three), fails that item before any credit is spent; without Continue On Fail
 * the node fails before the first upload. Through n8n-core against the sandbox.
 */
import { binaryItem, pdfBytes } from '../support/fixtures';
import {
	FAST_WAIT,
	jsonOf,
	LATEST,
	pairedOf,
	rl,
	run,
	uploadParams,
	useSandbox,
} from '../node/helpers';

const sb = useSandbox();

const charged = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.scanId !== undefined).length;

/** An expression that fails for item 1 only, and gives `valid` otherwise. */
const failsFor1 = (valid: string) =>
	`={{ $json.doc === 1 ? $("No Such Node").item.json.x : ${valid} }}`;

const waiting = { waitForCompletion: true };
const cases: Array<[string, Record<string, unknown>]> = [
	['Template', { templateId: rl(failsFor1('1')) }],
	['Input Binary Field', { binaryPropertyName: failsFor1('"data"') }],
	['Wait for Completion', { waitForCompletion: failsFor1('true'), options: FAST_WAIT }],
	['If Already Uploaded', { options: { onDuplicate: failsFor1('"error"') } }],
	['File Name at the Service', { options: { storedFileName: failsFor1('"asIs"') } }],
	['Hourly Upload Limit', { options: { hourlyLimit: failsFor1('150') } }],
	['Output (waiting)', { ...waiting, options: { ...FAST_WAIT, output: failsFor1('"raw"') } }],
	[
		'Wait Timeout (waiting)',
		{ ...waiting, options: { ...FAST_WAIT, waitTimeout: failsFor1('10') } },
	],
	[
		'First Poll Interval (waiting)',
		{ ...waiting, options: { ...FAST_WAIT, pollInterval: failsFor1('0.02') } },
	],
	[
		'Max Poll Interval (waiting)',
		{ ...waiting, options: { ...FAST_WAIT, maxPollInterval: failsFor1('0.1') } },
	],
];

const items = (tag: string) =>
	[0, 1, 2].map((doc) => ({
		...binaryItem(pdfBytes(`rev39-set-${tag}-${doc}`), `set-${doc}.pdf`, 'application/pdf'),
		json: { doc },
	}));

describe.each(cases)('%s by expression, failing for item 1', (name, extra) => {
	test('Continue On Fail: item 1 fails without a credit, items 0 and 2 are uploaded', async () => {
		const result = await run(sb.env(), uploadParams(extra), items(`${name}-cof`), true, LATEST);
		expect(pairedOf(result)).toEqual([0, 1, 2]);
		const [first, failed, third] = jsonOf(result);
		expect(failed.error).toEqual(expect.any(String));
		expect(failed.id).toBeUndefined();
		expect(first.id).toEqual(expect.any(Number));
		expect(third.id).toEqual(expect.any(Number));
		expect(charged()).toBe(2);
	});

	test('without Continue On Fail: the node fails before any upload', async () => {
		const result = await run(sb.env(), uploadParams(extra), items(`${name}-stop`), false, LATEST);
		expect(result.error).toBeDefined();
		expect(charged()).toBe(0);
	});
});
