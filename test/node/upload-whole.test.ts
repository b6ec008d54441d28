/**
 * Issue 32 §2: every final scan the upload outputs carries what GET /scans/{id} gives, whatever
 * path found it (existing in the hour's listing, found after a 409, recovered after a lost
 * answer, a repeat of another item's file), under both readings of the listing the spec leaves
 * open (`listedScans`: whole records, or brief ones without extracted_data). Through n8n-core's
 * engine against the sandbox.
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { isFullScan } from '../../nodes/shared/scans/status';
import { api } from '../support/sandbox-api';
import { binaryItem, pdfBytes } from '../support/fixtures';
import { FAST_WAIT, jsonOf, LATEST, run, uploadParams, useSandbox } from './helpers';

const sb = useSandbox();
const readings = ['full', 'brief'] as const;

const pdf = (name: string, content = pdfBytes(name)) =>
	binaryItem(content, name, 'application/pdf');
const fingerprint = (content: Buffer) =>
	createHash('sha256').update(content).digest('hex').slice(0, 12);
/** The scan as GET /scans/{id} gives it. */
/** The scan as GET /scans/{id} gives it, with the `original_filename` every output adds. */
async function scanById(id: unknown): Promise<IDataObject> {
	const reply = await api(sb.get(), 'GET', `/scans/${String(id)}`);
	const scan = reply.body.data as IDataObject;
	return {
		...scan,
		original_filename: String(scan.filename).replace(/\.ds-[0-9a-f]{12}(?=\.pdf$)/, ''),
	};
}
const posts = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.path === '/scans');

describe.each(readings)('listed records %s', (listedScans) => {
	beforeEach(() => sb.get().control.setOptions({ listedScans }));

	test('a re-run with "Return Existing Scan" and Wait for Completion: each item its scan whole, nothing sent', async () => {
		const [a, b] = [pdfBytes('whole-0'), pdfBytes('whole-1')];
		const wait = { waitForCompletion: true };
		const first = await run(
			sb.env(),
			uploadParams({ ...wait, options: FAST_WAIT }),
			[pdf('a.pdf', a), pdf('b.pdf', b)],
			false,
			LATEST,
		);
		expect(first.error).toBeUndefined();
		sb.get().control.clearRequests();
		const again = await run(
			sb.env(),
			uploadParams({ ...wait, options: { ...FAST_WAIT, onDuplicate: 'returnExisting' } }),
			[pdf('a.pdf', a), pdf('b.pdf', b), pdf('a-again.pdf', a)],
			false,
			LATEST,
		);
		expect(again.error).toBeUndefined();
		const out = jsonOf(again);
		expect(out.map((scan) => scan.status)).toEqual(['completed', 'completed', 'completed']);
		for (const scan of out) expect(scan).toEqual(await scanById(scan.id));
		expect(out.map((scan) => scan.id)).toEqual([
			...jsonOf(first).map((scan) => scan.id),
			out[0].id,
		]);
		expect(posts()).toEqual([]);
	});

	test('found after a 409, Output "Extracted Fields": the fields of the scan', async () => {
		const content = pdfBytes('found after a conflict');
		const sha256 = createHash('sha256').update(content).digest('hex');
		const [id] = sb.get().control.seedScans({
			count: 1,
			filename: `invoice.ds-${fingerprint(content)}.pdf`,
			content_sha256: sha256,
		});
		const result = await run(
			sb.env(),
			uploadParams({
				waitForCompletion: true,
				options: { ...FAST_WAIT, onDuplicate: 'returnExisting', output: 'fields' },
			}),
			[pdf('invoice.pdf', content)],
			false,
			LATEST,
		);
		expect(result.error).toBeUndefined();
		const [fields] = jsonOf(result);
		const whole = await scanById(id);
		expect(fields).toMatchObject({ ...(whole.extracted_data as IDataObject), scan_id: id });
		expect(posts().map((r) => r.status)).toEqual([409]);
	});

	test('found after a 409 without waiting: a final scan is output whole', async () => {
		const content = pdfBytes('raw after a conflict');
		const [id] = sb.get().control.seedScans({
			count: 1,
			filename: `raw.ds-${fingerprint(content)}.pdf`,
			content_sha256: createHash('sha256').update(content).digest('hex'),
		});
		const result = await run(
			sb.env(),
			uploadParams({ options: { onDuplicate: 'returnExisting' } }),
			[pdf('raw.pdf', content)],
			false,
			LATEST,
		);
		expect(jsonOf(result)).toEqual([await scanById(id)]);
	});

	test('recovered after a lost answer, final by the time it is listed: output whole', async () => {
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
		// The scan the lost attempt made is final when the node lists it after the re-send's 409
		// (processing takes 2 × 30 ms, the re-send waits a second).
		const result = await run(sb.env(), uploadParams(), [pdf('lost.pdf')], false, LATEST);
		expect(result.error).toBeUndefined();
		const [scan] = jsonOf(result);
		expect(scan).toMatchObject({ id: 1, status: 'completed' });
		expect(scan).toEqual(await scanById(1));
		expect(sb.get().control.account().used_scans).toBe(1);
	});
});

describe('isFullScan: which listed record is the scan', () => {
	const whole: IDataObject = {
		id: 1,
		status: 'completed',
		filename: 'a.pdf',
		template_id: 1,
		confidence: 90,
		extracted_data: { total: 1 },
		reviewed_data: null,
		validation_errors: [],
		is_partial: false,
		error_message: null,
		created_at: '2024-05-01T12:00:00+00:00',
		updated_at: '2024-05-01T12:00:00+00:00',
	};

	const without = (field: string) =>
		Object.fromEntries(Object.entries(whole).filter(([key]) => key !== field));
	test.each([
		['every field', whole, true],
		['no confidence', without('confidence'), false],
		['no extracted_data', without('extracted_data'), false],
		[
			'completed with extracted_data null (the spec says it is filled)',
			{ ...whole, extracted_data: null },
			false,
		],
		[
			'failed with extracted_data null and its error_message',
			{ ...whole, status: 'failed', extracted_data: null, error_message: 'Unreadable file.' },
			true,
		],
		['failed without error_message', { ...whole, status: 'failed', error_message: null }, false],
	])('%s', (_what, record, expected) => {
		expect(isFullScan(record as IDataObject)).toBe(expected);
	});
});
