/**
 * Scan → Upload, issue 24 sections 5 and 6: the "Hourly Upload Limit" has clear bounds and works
 * for every allowed value, every time the node promises is true, and the check before the first
 * upload serves the re-runs it can: documents the service provably has (their scans carry the
 * file's fingerprint) and repeats within the batch take no credit and no hourly slot. The spec
 * does not say whether the service answers a limit (429, 402) or a 409 first for a file it has:
 * each re-run case runs under both readings (the sandbox's `duplicateCheck`).
 */
import type { IDataObject } from 'n8n-workflow';

import { jsonOf, LATEST, pairedOf, run, uploadParams, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();
const HOUR = 60 * 60 * 1000;

const pdfs = (count: number, label = 'limits') =>
	Array.from({ length: count }, (_, i) =>
		binaryItem(pdfBytes(`${label} ${i}`), `doc-${i}.pdf`, 'application/pdf'),
	);
const posts = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.path === '/scans');
const withLimit = (hourlyLimit: unknown, options: IDataObject = {}) =>
	uploadParams({ options: { hourlyLimit, ...options } });
const returnExisting = (options: IDataObject = {}) =>
	uploadParams({ options: { onDuplicate: 'returnExisting', ...options } });
const virtualNow = () => Date.parse(sb.get().control.advanceClock(0));

describe('section 5: the hourly setting and the times the node promises', () => {
	test("1,000 counts as the service's 200: with 190 uploads in the hour a batch of 20 is refused before the first upload", async () => {
		sb.get().control.seedUploads({ count: 190 });
		const result = await run(sb.env(), withLimit(1000), pdfs(20));
		expect(result.error?.message).toMatch(
			/^The batch of 20 documents cannot be uploaded whole: 10 uploads of the 200 per rolling hour are left/,
		);
		expect(posts()).toHaveLength(0);
	});

	test.each([0, -1, 2.5, 'many'])(
		'%p is refused before any request, naming the item and the option',
		async (value) => {
			const limit = withLimit(`={{ ${JSON.stringify(value)} }}`);
			const result = await run(sb.env(), limit, pdfs(2), false, LATEST);
			expect(result.error?.message).toBe(
				`Item 0: the option "Hourly Upload Limit" must be a whole number from 1 to 200, got "${String(value)}"`,
			);
			expect(sb.get().control.requests()).toEqual([]);
		},
	);

	test('a low limit (10) on an account with 120 uploads in the hour: refused before the first upload, with Continue On Fail each item "not uploaded" with its time', async () => {
		sb.get().control.seedUploads({ count: 120 });
		const refused = await run(sb.env(), withLimit(10), pdfs(2));
		expect(refused.error?.message).toMatch(
			/^The batch of 2 documents cannot be uploaded whole: 0 uploads of the 10 per rolling hour are left/,
		);
		const held = await run(sb.env(), withLimit(10), pdfs(2), true);
		expect(pairedOf(held)).toEqual([0, 1]);
		for (const item of jsonOf(held)) {
			expect(item).toEqual(expect.objectContaining({ notUploaded: true, reason: 'hourlyLimit' }));
			expect(typeof item.retryAfter).toBe('string');
		}
		expect(posts()).toHaveLength(0);
	});

	test('a batch of more than 200 is told it never fits in one hour, with no time that would not hold', async () => {
		const result = await run(sb.env(), uploadParams(), pdfs(201, 'big'));
		expect(result.error?.message).toMatch(/^The batch of 201 documents cannot be uploaded whole/);
		expect(result.error?.description).toContain(
			'A batch that needs more than 200 uploads never fits in one rolling hour',
		);
		expect(result.error?.description).not.toMatch(/All 201 fit from/);
		expect(posts()).toHaveLength(0);
	});

	test('"retryAfter" is a moment from which a retry succeeds: retried right then, the upload goes through', async () => {
		sb.get().control.seedUploads({ count: 199 });
		const result = await run(sb.env(), uploadParams(), pdfs(2), true);
		const held = jsonOf(result)[1];
		expect(held).toEqual(expect.objectContaining({ notUploaded: true, reason: 'hourlyLimit' }));
		const at = Date.parse(String(held.retryAfter));
		expect(at).toBeGreaterThan(virtualNow());
		sb.get().control.advanceClock(at - virtualNow());
		const retried = await run(sb.env(), uploadParams(), [pdfs(2)[1]]);
		expect(retried.error).toBeUndefined();
		expect(posts().map((r) => r.status)).toEqual([201, 201]);
	});
});

describe.each(['afterLimits', 'beforeLimits'] as const)(
	'section 6: re-runs the node can serve (the service answers 409 %s)',
	(duplicateCheck) => {
		beforeEach(() => {
			sb.get().control.setOptions({ duplicateCheck });
		});

		async function stoppedBy402() {
			sb.get().control.setCredits(10);
			sb.get().control.takeAfterUploads({ after: 2, credits: 8 });
			const files = pdfs(5, `credit ${duplicateCheck}`);
			const stopped = await run(
				sb.env(),
				uploadParams({ options: { concurrency: 1 } }),
				files,
				false,
				LATEST,
			);
			expect(stopped.error?.message).toMatch(/HTTP 402/);
			const created = stopped.error?.context?.createdScans as IDataObject[];
			expect(created.map((c) => c.itemIndex)).toEqual([0, 1]);
			return { files, created };
		}

		test.each([
			['right away', 0],
			['an hour later', HOUR + 60_000],
		])(
			'after a 402 stop the user buys exactly the credits still needed; the re-run goes through (%s)',
			async (_when, later) => {
				const { files, created } = await stoppedBy402();
				sb.get().control.advanceClock(later);
				sb.get().control.setCredits(3);
				const rerun = await run(sb.env(), returnExisting({ concurrency: 1 }), files, false, LATEST);
				expect(rerun.error).toBeUndefined();
				const out = jsonOf(rerun);
				expect(out.slice(0, 2).map((scan) => scan.id)).toEqual(created.map((c) => c.scanId));
				expect(sb.get().control.account().remaining_scans).toBe(0);
				// The documents already scanned were not sent again.
				expect(posts().filter((r) => r.status === 409)).toHaveLength(0);
			},
		);

		test('the same bytes twice in one batch with 1 credit left: one upload, both items get its scan', async () => {
			sb.get().control.setCredits(1);
			const [a] = pdfs(1, `twice ${duplicateCheck}`);
			const result = await run(sb.env(), returnExisting(), [a, a], false, LATEST);
			expect(result.error).toBeUndefined();
			const [first, second] = jsonOf(result);
			expect(second.id).toBe(first.id);
			expect(posts()).toHaveLength(1);
		});

		test('Continue On Fail, items [A, A, B] and 2 credits: B is uploaded, A once', async () => {
			sb.get().control.setCredits(2);
			const [a, b] = pdfs(2, `aab ${duplicateCheck}`);
			const result = await run(sb.env(), returnExisting(), [a, a, b], true, LATEST);
			const out = jsonOf(result);
			expect(out.map((item) => item.notUploaded)).toEqual([undefined, undefined, undefined]);
			expect(out[1].id).toBe(out[0].id);
			expect(out[2].id).not.toBe(out[0].id);
			expect(posts().map((r) => r.status)).toEqual([201, 201]);
		});

		test('a re-run within a full hour: the scans the hour shows prove every document; nothing is sent', async () => {
			sb.get().control.setOptions({ rateLimitPerHour: 20 });
			const files = pdfs(20, `full ${duplicateCheck}`);
			const first = await run(sb.env(), withLimit(20), files, false, LATEST);
			expect(first.error).toBeUndefined();
			sb.get().control.clearRequests();
			const rerun = await run(sb.env(), returnExisting({ hourlyLimit: 20 }), files, false, LATEST);
			expect(rerun.error).toBeUndefined();
			expect(jsonOf(rerun).map((scan) => scan.id)).toEqual(jsonOf(first).map((scan) => scan.id));
			expect(posts()).toHaveLength(0);
		});

		test('one document re-run within a full hour: its scan after a 409; after a 429 "not uploaded", saying what is not known, with no listing read', async () => {
			sb.get().control.setOptions({ rateLimitPerHour: 3 });
			const files = pdfs(3, `one ${duplicateCheck}`);
			const first = await run(sb.env(), uploadParams(), files, false, LATEST);
			expect(first.error).toBeUndefined();
			sb.get().control.clearRequests();
			const rerun = await run(sb.env(), returnExisting(), [files[1]], true, LATEST);
			const [item] = jsonOf(rerun);
			if (duplicateCheck === 'beforeLimits') expect(item.id).toBe(jsonOf(first)[1].id);
			else {
				expect(item).toMatchObject({ notUploaded: true, httpCode: '429', reason: 'hourlyLimit' });
				expect(item.description).toMatch(
					/Whether the service has this file from an earlier upload is not known: none of the scans this execution read holds it/,
				);
			}
			// The template's listing is read only after the 409; after the 429, only the hour's count
			// (for "retryAfter") is.
			const templateReads = sb
				.get()
				.control.requests()
				.filter((r) => r.path === '/scans' && r.query.template_id !== undefined);
			expect(templateReads.length > 0).toBe(duplicateCheck === 'beforeLimits');
		});
	},
);
