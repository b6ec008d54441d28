/** Scan → Upload: multipart upload, local checks, wait for completion, API errors, items. */
import { FAST_WAIT, jsonOf, pairedOf, rl, run, useSandbox, uploadParams } from './helpers';
import { binaryItem, jpegBytes, pdfBytes, pngBytes } from '../support/fixtures';

const sb = useSandbox();

const pdfItem = (name = 'invoice.pdf', label?: string) =>
	binaryItem(pdfBytes(label), name, 'application/pdf');

/** The most requests that were in flight at the same moment (arrival to answer). */
function maxInFlight(requests: Array<{ atMs?: number; doneAtMs?: number }>): number {
	const edges = requests.flatMap((r) => [
		{ at: r.atMs!, delta: 1 },
		{ at: r.doneAtMs!, delta: -1 },
	]);
	// At equal times the answer comes first: a request that starts as another ends does not overlap it.
	edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
	let now = 0;
	let most = 0;
	for (const edge of edges) most = Math.max(most, (now += edge.delta));
	return most;
}

function credits() {
	return sb.get().control.account().used_scans;
}

describe('upload', () => {
	test('sends template_id and the file with its name, outputs the creation object, uses one credit', async () => {
		const content = pdfBytes();
		const result = await run(sb.env(), uploadParams(), [
			binaryItem(content, 'march.pdf', 'application/pdf'),
		]);
		expect(result.error).toBeUndefined();
		const [scan] = jsonOf(result);
		expect(scan).toEqual({
			id: expect.any(Number),
			status: 'uploaded',
			original_filename: 'march.pdf',
			template_id: 1,
			filename: 'march.pdf',
			created_at: expect.any(String),
		});
		expect(pairedOf(result)).toEqual([0]);
		const stored = sb.get().control.getScan(scan.id as number)!;
		expect(stored.templateId).toBe(1);
		expect(stored.filename).toBe('march.pdf');
		expect(credits()).toBe(1);
		expect(
			sb
				.get()
				.control.requests()
				.map((r) => `${r.method} ${r.path} ${r.status}`),
		).toEqual(['POST /scans 201']);
	});

	test('accepts PNG and JPEG, a template picked from the list, and a plain template ID', async () => {
		const result = await run(sb.env(), uploadParams({ templateId: rl('4', 'list') }), [
			binaryItem(pngBytes(), 'receipt.png', 'image/png'),
			binaryItem(jpegBytes(), 'photo.JPEG', 'image/jpeg'),
			binaryItem(jpegBytes(), 'photo2.jpg', 'application/octet-stream'),
		]);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result).map((s) => [s.filename, s.template_id])).toEqual([
			['receipt.png', 4],
			['photo.JPEG', 4],
			['photo2.jpg', 4],
		]);
		const plain = await run(sb.env(), uploadParams({ templateId: '2' }), [pdfItem('plain.pdf')]);
		expect(plain.error).toBeUndefined();
		expect(jsonOf(plain)[0].template_id).toBe(2);
	});

	test('reads another binary property when configured', async () => {
		const item = binaryItem(pdfBytes(), 'other.pdf', 'application/pdf', {}, 'attachment_0');
		const result = await run(sb.env(), uploadParams({ binaryPropertyName: 'attachment_0' }), [
			item,
		]);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0].filename).toBe('other.pdf');
	});

	test('uses the X-API-Key header when the credential says so', async () => {
		const result = await run(sb.env({ authHeader: 'xApiKey' }), uploadParams(), [pdfItem()]);
		expect(result.error).toBeUndefined();
		expect(
			sb
				.get()
				.control.requests()
				.map((r) => r.authScheme),
		).toEqual(['x-api-key']);
	});
});

describe('local checks before any request', () => {
	const cases: Array<
		[
			string,
			() => ReturnType<typeof binaryItem> | { json: object },
			Record<string, unknown>,
			RegExp,
		]
	> = [
		[
			'no binary data at all',
			() => ({ json: {} }),
			{},
			/Item 0: the binary property "data".*does not exist/,
		],
		[
			'another binary property name',
			() => pdfItem(),
			{ binaryPropertyName: 'file' },
			/binary property "file".*does not exist/,
		],
		[
			'an empty file',
			() => binaryItem(Buffer.alloc(0), 'empty.pdf', 'application/pdf'),
			{},
			/is empty \(0 bytes\)/,
		],
		[
			'a .docx name',
			() => binaryItem(pdfBytes(), 'letter.docx', 'application/pdf'),
			{},
			/not a PDF, JPG, JPEG or PNG file \(file name extension "\.docx"\)/,
		],
		[
			'a .doc name on a file sent as a download',
			() => binaryItem(pdfBytes(), 'letter.doc', 'application/force-download'),
			{},
			/file name extension "\.doc"/,
		],
		[
			'PDF content named .png',
			() => binaryItem(pdfBytes(), 'scan.png', 'image/png'),
			{},
			/extension "\.png" but its content is PDF/,
		],
		[
			'PNG content declared as PDF',
			() => binaryItem(pngBytes(), 'scan.pdf', 'application/pdf'),
			{},
			/extension "\.pdf" but its content is PNG/,
		],
		[
			'HTML saved as .pdf',
			() => binaryItem(Buffer.from('<html>error</html>'), 'a.pdf', 'application/pdf'),
			{},
			/does not start with a PDF/,
		],
		[
			'a file over 20 MB',
			() =>
				binaryItem(
					Buffer.concat([Buffer.from('%PDF'), Buffer.alloc(20 * 1024 * 1024 - 3)]),
					'big.pdf',
					'application/pdf',
				),
			{},
			/too large: 20\.0 MB \(20971521 bytes\); the limit is 20 MB/,
		],
		// Expressions get past the editor's own checks of the resource locator.
		[
			'a template ID with letters',
			() => pdfItem(),
			{ templateId: rl('={{ "abc" }}') },
			/the field "Template" must be a positive whole number, got "abc"/,
		],
		[
			'template ID 0',
			() => pdfItem(),
			{ templateId: rl('={{ 0 }}') },
			/the field "Template" must be a positive whole number, got "0"/,
		],
		[
			'an empty template',
			() => pdfItem(),
			{ templateId: rl('={{ "" }}') },
			/the field "Template" must be a positive whole number, got nothing/,
		],
	];

	test.each(cases)(
		'%s fails the item with a named rule and sends nothing',
		async (_label, makeItem, params, message) => {
			const before = sb.get().control.account();
			const result = await run(sb.env(), uploadParams(params), [
				makeItem() as ReturnType<typeof binaryItem>,
			]);
			expect(result.error?.message).toMatch(message);
			expect(result.error?.description).toBeTruthy();
			expect(sb.get().control.requests()).toEqual([]);
			expect(sb.get().control.account()).toEqual(before);
		},
	);

	// Whatever MIME type is declared (the service ignores it; browsers in Citrix sessions send
	// image/x-citrix-jpeg, e.g. to n8n's Form Trigger): the content decides.
	test.each([
		[
			'a name with a date for an extension',
			'Lieferschein 12.03.2024',
			'application/pdf',
			'Lieferschein 12.03.2024.pdf',
		],
		['application/octet-stream', 'invoice.pdf', 'application/octet-stream', 'invoice.pdf'],
		['application/force-download', 'invoice.pdf', 'application/force-download', 'invoice.pdf'],
		['application/x-download', 'invoice.pdf', 'application/x-download', 'invoice.pdf'],
		['application/download', 'invoice.pdf', 'application/download', 'invoice.pdf'],
		['no extension and a generic type', 'scan', 'application/octet-stream', 'scan.pdf'],
		['text/html', 'a.pdf', 'text/html', 'a.pdf'],
		['image/gif and no extension', 'scan', 'image/gif', 'scan.pdf'],
		[
			'JPEG content declared image/x-citrix-jpeg',
			'photo.jpg',
			'image/x-citrix-jpeg',
			'photo.jpg',
			jpegBytes,
		],
		['PNG content declared image/x-citrix-png', 'shot', 'image/x-citrix-png', 'shot.png', pngBytes],
		['PNG content declared application/pdf', 'scan.png', 'application/pdf', 'scan.png', pngBytes],
	])(
		'the content decides: a file with %s is uploaded',
		async (_label, fileName, mimeType, sentName, content = pdfBytes) => {
			const result = await run(sb.env(), uploadParams(), [
				binaryItem(content(fileName), fileName, mimeType),
			]);
			expect(result.error).toBeUndefined();
			expect(jsonOf(result)[0].filename).toBe(sentName);
			const post = sb
				.get()
				.control.requests()
				.find((r) => r.method === 'POST');
			expect(post?.status).toBe(201);
		},
	);

	test('a file of exactly 20 MB is accepted', async () => {
		const exact = Buffer.concat([
			Buffer.from('%PDF-1.4 exact'),
			Buffer.alloc(20 * 1024 * 1024 - 14, 0x20),
		]);
		const result = await run(sb.env(), uploadParams(), [
			binaryItem(exact, 'exact.pdf', 'application/pdf'),
		]);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0].status).toBe('uploaded');
		expect(credits()).toBe(1);
	});
});

describe('wait for completion', () => {
	test('completed: outputs the full scan', async () => {
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: FAST_WAIT }),
			[pdfItem()],
		);
		expect(result.error).toBeUndefined();
		const [scan] = jsonOf(result);
		expect(scan.status).toBe('completed');
		expect(scan.extracted_data).toEqual(
			expect.objectContaining({ invoice_number: expect.any(String) }),
		);
		expect(scan.validation_errors).toEqual([]);
		const polls = sb
			.get()
			.control.requests()
			.filter((r) => r.method === 'GET');
		expect(polls.length).toBeGreaterThanOrEqual(1);
		expect(polls.every((r) => r.path === `/scans/${scan.id}`)).toBe(true);
	});

	test('validation_failed is a result, not an error', async () => {
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: FAST_WAIT }),
			[pdfItem('invalid-invoice.pdf')],
		);
		expect(result.error).toBeUndefined();
		const [scan] = jsonOf(result);
		expect(scan.status).toBe('validation_failed');
		expect(scan.validation_errors).toEqual([
			expect.objectContaining({ field: expect.any(String) }),
		]);
	});

	test('failed is an error carrying the error_message', async () => {
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: FAST_WAIT }),
			[pdfItem('will-fail.pdf')],
		);
		const scanId = 1;
		const stored = sb.get().control.getScan(scanId)!;
		expect(stored.status).toBe('failed');
		expect(result.error?.message).toBe(`Item 0: scan ${scanId} failed: ${stored.errorMessage}`);
		expect(result.error?.description).toMatch(/credit was returned/);
	});

	test('failed under Continue On Fail: an error item, the other items go on', async () => {
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: FAST_WAIT }),
			[pdfItem('good.pdf'), pdfItem('fail.pdf'), pdfItem('also-good.pdf')],
			true,
		);
		expect(result.error).toBeUndefined();
		const out = jsonOf(result);
		expect(out.map((o) => (o.error ? 'error' : o.status))).toEqual([
			'completed',
			'error',
			'completed',
		]);
		expect(out[1].error).toMatch(/^Item 1: scan \d+ failed: /);
		expect(out[1].scan_id).toEqual(expect.any(Number));
		expect(out[1].status).toBe('failed');
		expect(pairedOf(result)).toEqual([0, 1, 2]);
	});

	test('times out naming the scan and its last status; the scan keeps existing', async () => {
		sb.get().control.hold(true);
		const started = Date.now();
		const result = await run(
			sb.env(),
			uploadParams({
				waitForCompletion: true,
				options: { pollInterval: 0.05, maxPollInterval: 0.2, waitTimeout: 1 },
			}),
			[pdfItem()],
		);
		const elapsed = Date.now() - started;
		expect(result.error?.message).toBe(
			'Item 0: scan 1 did not finish within 1 seconds (last status: uploaded)',
		);
		expect(result.error?.description).toMatch(/keeps processing/);
		expect(elapsed).toBeGreaterThanOrEqual(1000);
		// Only that it gives up at all: a busy machine may be slow, never early.
		expect(elapsed).toBeLessThan(20_000);
		expect(sb.get().control.getScan(1)?.status).toBe('uploaded');
		// Back-off: the waits grow, so far fewer polls than 1 s / 50 ms.
		const polls = sb
			.get()
			.control.requests()
			.filter((r) => r.method === 'GET').length;
		expect(polls).toBeGreaterThanOrEqual(2);
		expect(polls).toBeLessThan(12);
	});

	test('output "fields" gives the extracted fields with id, status and confidence', async () => {
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: { ...FAST_WAIT, output: 'fields' } }),
			[pdfItem()],
		);
		const [fields] = jsonOf(result);
		expect(fields).toEqual(
			expect.objectContaining({
				scan_id: 1,
				status: 'completed',
				confidence: expect.any(Number),
				invoice_number: expect.any(String),
				total_amount: expect.any(Number),
			}),
		);
		expect(fields.extracted_data).toBeUndefined();
	});

	test('output "rows" gives one item per table row, all paired to the input item', async () => {
		const result = await run(
			sb.env(),
			uploadParams({
				templateId: rl(2),
				waitForCompletion: true,
				options: { ...FAST_WAIT, output: 'rows' },
			}),
			[pdfItem('delivery.pdf')],
		);
		expect(result.error).toBeUndefined();
		const rows = jsonOf(result);
		const stored = sb.get().control.getScan(1)!;
		const table = (stored.extractedData as { rows: object[] }).rows;
		expect(rows).toHaveLength(table.length);
		expect(rows.map((r) => r.row_number)).toEqual(table.map((_, i) => i + 1));
		expect(rows[0]).toEqual(
			expect.objectContaining({ scan_id: 1, table: 'rows', article_number: expect.anything() }),
		);
		expect(pairedOf(result)).toEqual(table.map(() => 0));
	});
});

// Duplicates (409), "Return Existing Scan" and lost answers: upload-recovery.test.ts.

describe('API errors of the upload', () => {
	test('402 without credit', async () => {
		sb.get().control.createAccount({ apiKeys: ['sk_test_empty'], credits: 0 });
		const template = sb
			.get()
			.control.createTemplate({ apiKey: 'sk_test_empty', name: 'Mine', extraction_mode: 'scalar' });
		const result = await run(
			sb.env({ apiKey: 'sk_test_empty' }),
			uploadParams({ templateId: rl(template.id) }),
			[pdfItem()],
		);
		expect(result.error?.message).toBe('Not enough scan credit (item 0)');
		expect(result.error?.description).toMatch(/Top up the account/);
		expect(result.error?.httpCode).toBe('402');
		expect(JSON.stringify(result.error)).not.toContain('sk_test_empty');
	});

	test('404 for an inactive template', async () => {
		const result = await run(sb.env(), uploadParams({ templateId: rl(5) }), [pdfItem()]);
		expect(result.error?.message).toMatch(/^Not found: .*\(item 0\)$/);
		expect(result.error?.description).toMatch(/only active templates/);
		expect(credits()).toBe(0);
	});

	test('422 from the service names the field', async () => {
		sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'status', status: 422 });
		const result = await run(sb.env(), uploadParams(), [pdfItem()]);
		expect(result.error?.message).toBe('The API rejected the request: invalid parameters (item 0)');
		expect(result.error?.description).toMatch(/Injected fault: HTTP 422/);
		expect(sb.get().control.requests()).toHaveLength(1);
	});

	test('429 over the hourly limit; Continue On Fail keeps the first item', async () => {
		sb.get().control.reset({ rateLimitPerHour: 1 });
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 1 } }),
			[pdfItem('a.pdf'), pdfItem('b.pdf')],
			true,
		);
		const out = jsonOf(result);
		expect(out[0]).toEqual(expect.objectContaining({ filename: 'a.pdf', status: 'uploaded' }));
		expect(out[1]).toEqual({
			error: 'Rate limit reached: more than 200 scans in the last hour (item 1)',
			description: expect.stringMatching(/rolling hour/),
			httpCode: '429',
			notUploaded: true,
			reason: 'hourlyLimit',
			retryAfter: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
		});
		expect(pairedOf(result)).toEqual([0, 1]);
		expect(
			sb
				.get()
				.control.requests()
				.filter((r) => r.method === 'POST'),
		).toHaveLength(2);
	});
});

describe('items', () => {
	test('Continue On Fail: N items in, N items out, errors paired to their input item', async () => {
		const items = [
			pdfItem('one.pdf'),
			{ json: { note: 'no file' } },
			binaryItem(pngBytes(), 'three.png', 'image/png'),
			binaryItem(pdfBytes(), 'four.docx', 'application/pdf'),
			pdfItem('five.pdf'),
		];
		const result = await run(
			sb.env(),
			uploadParams(),
			items as ReturnType<typeof binaryItem>[],
			true,
		);
		expect(result.error).toBeUndefined();
		const out = jsonOf(result);
		expect(out).toHaveLength(5);
		expect(pairedOf(result)).toEqual([0, 1, 2, 3, 4]);
		expect(out.map((o) => o.filename ?? null)).toEqual([
			'one.pdf',
			null,
			'three.png',
			null,
			'five.pdf',
		]);
		expect(out[1].error).toMatch(/^Item 1: the binary property "data"/);
		expect(out[3].error).toMatch(/^Item 3: the file "four.docx"/);
		expect(credits()).toBe(3);
	});

	test('without Continue On Fail the execution fails naming the item', async () => {
		const result = await run(sb.env(), uploadParams(), [
			pdfItem('ok.pdf'),
			{ json: {} } as ReturnType<typeof binaryItem>,
		]);
		expect(result.error?.message).toMatch(/^Item 1: /);
		expect(result.output).toEqual([]);
	});

	test('items run concurrently, bounded, and the output keeps the input order', async () => {
		// The first upload takes 1500 ms and the others 600 ms, so the first finishes last.
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'latency',
			latencyMs: 1500,
		});
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'latency',
			latencyMs: 600,
			times: 7,
		});
		const names = Array.from({ length: 8 }, (_, i) => `doc-${i}.pdf`);
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 4 } }),
			names.map((n) => pdfItem(n)),
		);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result).map((s) => s.filename)).toEqual(names);
		expect(pairedOf(result)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
		// Measured on the sandbox's request log, not on a stopwatch: 4 uploads were in flight at
		// once, and never more.
		const posts = sb
			.get()
			.control.requests()
			.filter((r) => r.method === 'POST');
		expect(posts).toHaveLength(8);
		expect(maxInFlight(posts)).toBe(4);
		// The slow upload finished after later ones, yet the output is in input order.
		const created = jsonOf(result).map((s) => s.id as number);
		expect(created).not.toEqual([...created].sort((a, b) => a - b));
	});

	test('concurrency 1 is sequential', async () => {
		sb.get().control.addFault({
			method: 'POST',
			path: '^/scans$',
			kind: 'latency',
			latencyMs: 100,
			times: 4,
		});
		const result = await run(
			sb.env(),
			uploadParams({ options: { concurrency: 1 } }),
			[1, 2, 3, 4].map((n) => pdfItem(`s${n}.pdf`)),
		);
		expect(result.error).toBeUndefined();
		expect(
			maxInFlight(
				sb
					.get()
					.control.requests()
					.filter((r) => r.method === 'POST'),
			),
		).toBe(1);
	});
});

test('no API key in any error', async () => {
	const result = await run(sb.env({ apiKey: 'sk_live_should_not_leak' }), uploadParams(), [
		pdfItem(),
	]);
	expect(result.error?.message).toBe(
		'Authentication failed: the API key is missing or not valid (item 0)',
	);
	expect(JSON.stringify(result.error)).not.toContain('sk_live_should_not_leak');
	expect(JSON.stringify(result.run.data)).not.toContain('sk_live_should_not_leak');
});
