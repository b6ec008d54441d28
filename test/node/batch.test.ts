/**
 * Batches (issue 7): every item is checked before the first upload, uploads run a bounded
 * number at a time, and every scan to be waited for joins one poller per execution.
 * Timing comes from the sandbox (hold, faults, outcomes by file name), never from sleeps.
 */
import { WorkflowExecute } from 'n8n-core';

import { withoutLimitCheck, jsonOf, pairedOf, rl, run, useSandbox, uploadParams } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';
import { waitSettings } from '../../nodes/DocumentScanning/waiting/pollSettings';

const sb = useSandbox({ processingDelayMs: 50 });

/** Waits until `condition` holds, checking on every turn of the event loop (no fixed sleep). */
async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
	const end = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > end) throw new Error('condition not reached');
		await new Promise((resolve) => setImmediate(resolve));
	}
}

const WAIT = { pollInterval: 0.2, maxPollInterval: 0.5, waitTimeout: 20 };

const pdf = (name: string) => binaryItem(pdfBytes(name), name, 'application/pdf');
const pdfs = (count: number, name = (i: number) => `doc-${i}.pdf`) =>
	Array.from({ length: count }, (_, i) => pdf(name(i)));

const requests = () => sb.get().control.requests();
/** ID of the scan the sandbox stored for `filename` (IDs count from 1 after each reset). */
function scanIdOf(filename: string): number {
	for (let id = 1; sb.get().control.getScan(id); id++)
		if (sb.get().control.getScan(id)?.filename === filename) return id;
	throw new Error(`no scan for ${filename}`);
}
const posts = () => requests().filter((r) => r.method === 'POST');
// The limit check before the first upload is tested in budget.test.ts.
const gets = () => withoutLimitCheck(requests()).filter((r) => r.method === 'GET');

describe('phase 1: every item is checked before the first upload', () => {
	test('without Continue On Fail, an invalid item 5 fails the node before any upload', async () => {
		const items = [...pdfs(5), { json: {} }, pdf('doc-6.pdf')];
		const result = await run(sb.env(), uploadParams(), items as never);
		expect(result.error?.message).toMatch(/^Item 5: the binary property "data".*does not exist/);
		expect(requests()).toEqual([]);
		expect(sb.get().control.account().used_scans).toBe(0);
	});

	test('an empty file, a wrong type and a template expression are checked for every item too', async () => {
		const items = [pdf('a.pdf'), binaryItem(Buffer.alloc(0), 'empty.pdf', 'application/pdf')];
		const empty = await run(sb.env(), uploadParams(), items);
		expect(empty.error?.message).toMatch(/^Item 1: .*is empty/);
		const typed = await run(sb.env(), uploadParams(), [
			pdf('a.pdf'),
			binaryItem(pdfBytes(), 'x.docx', 'application/pdf'),
		]);
		expect(typed.error?.message).toMatch(/^Item 1: .*file name extension "\.docx"/);
		const template = await run(sb.env(), uploadParams({ templateId: rl('={{ $json.t }}') }), [
			{ json: { t: 1 }, binary: pdf('a.pdf').binary },
			{ json: { t: 'x' }, binary: pdf('b.pdf').binary },
		] as never);
		expect(template.error?.message).toMatch(
			/^Item 1: the field "Template" must be a positive whole number/,
		);
		expect(requests()).toEqual([]);
	});

	test('with Continue On Fail, invalid items become their paired error items and the rest are uploaded', async () => {
		const items = [
			pdf('a.pdf'),
			{ json: {} },
			pdf('c.pdf'),
			binaryItem(Buffer.alloc(0), 'd.pdf', 'application/pdf'),
			pdf('e.pdf'),
		];
		const result = await run(sb.env(), uploadParams(), items as never, true);
		expect(result.error).toBeUndefined();
		const out = jsonOf(result);
		expect(out).toHaveLength(5);
		expect(pairedOf(result)).toEqual([0, 1, 2, 3, 4]);
		expect(out.map((o) => o.filename ?? 'error')).toEqual([
			'a.pdf',
			'error',
			'c.pdf',
			'error',
			'e.pdf',
		]);
		expect(out[1].error).toMatch(/^Item 1: /);
		expect(out[3].error).toMatch(/^Item 3: .*is empty/);
		expect(posts()).toHaveLength(3);
	});
});

describe('phase 2 and 3: uploads do not wait for scans', () => {
	test('all uploads are sent while every scan is still held, then each item gets its own scan in input order', async () => {
		sb.get().control.hold(true);
		const pending = run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: { ...WAIT, concurrency: 2 } }),
			pdfs(8),
		);
		// With waiting inside the upload slots, only 2 uploads could be sent while scans are held.
		await until(() => posts().filter((r) => r.status === 201).length === 8);
		sb.get().control.hold(false);
		const result = await pending;
		expect(result.error).toBeUndefined();
		const out = jsonOf(result);
		expect(out.map((o) => o.filename)).toEqual(Array.from({ length: 8 }, (_, i) => `doc-${i}.pdf`));
		expect(out.every((o) => o.status === 'completed' && o.extracted_data)).toBe(true);
		expect(pairedOf(result)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
		for (const scan of out)
			expect(sb.get().control.getScan(scan.id as number)?.filename).toBe(scan.filename);
	});

	test.each([
		['brief', 'reads each final scan once by ID'],
		['full', 'takes each final scan as listed, with no read by ID'],
	] as const)(
		'the poller follows many scans through GET /scans; records listed %s: it %s',
		async (listedScans, _behaviour) => {
			// The spec does not say whether GET /scans lists whole scans: both readings.
			sb.get().control.setOptions({ listedScans });
			const result = await run(
				sb.env(),
				uploadParams({ waitForCompletion: true, options: WAIT }),
				pdfs(12),
			);
			expect(result.error).toBeUndefined();
			const out = jsonOf(result);
			const ids = out.map((o) => o.id);
			expect(new Set(ids).size).toBe(12);
			// Whole scans either way.
			for (const scan of out)
				expect(scan).toEqual(expect.objectContaining({ extracted_data: expect.any(Object) }));
			const listings = gets().filter((r) => r.path === '/scans');
			expect(listings.length).toBeGreaterThan(0);
			expect(listings.every((r) => r.query.template_id === '1')).toBe(true);
			const byId = (id: unknown) => gets().filter((r) => r.path === `/scans/${String(id)}`);
			for (const id of ids) expect(byId(id)).toHaveLength(listedScans === 'brief' ? 1 : 0);
			expect(gets().length / 12).toBeLessThanOrEqual(5);
		},
	);

	test('one or two scans are read by ID only', async () => {
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: WAIT }),
			pdfs(2),
		);
		expect(result.error).toBeUndefined();
		expect(gets().every((r) => /^\/scans\/\d+$/.test(r.path))).toBe(true);
	});

	test('scans that finish out of order: each item gets its own result; failed and validation_failed per item', async () => {
		// Held, the test finishes every scan but the first one's; released, the first finishes last.
		sb.get().control.hold(true);
		const names = ['slow.pdf', 'b-fail.pdf', 'c-invalid.pdf', 'd.pdf', 'e-fail.pdf', 'f.pdf'];
		const items = names.map((name) => pdf(name));
		const pending = run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: WAIT }),
			items,
			true,
		);
		await until(() => posts().filter((r) => r.status === 201).length === names.length);
		for (const name of names.slice(1)) {
			const id = scanIdOf(name);
			sb.get().control.step(id);
			sb.get().control.step(id);
		}
		sb.get().control.hold(false);
		const result = await pending;
		expect(result.error).toBeUndefined();
		const out = jsonOf(result);
		expect(pairedOf(result)).toEqual([0, 1, 2, 3, 4, 5]);
		expect(out[0]).toEqual(expect.objectContaining({ filename: 'slow.pdf', status: 'completed' }));
		expect(out[1].error).toMatch(/^Item 1: scan \d+ failed: /);
		expect(out[1].status).toBe('failed');
		expect(sb.get().control.getScan(out[1].scan_id as number)?.filename).toBe('b-fail.pdf');
		expect(out[2]).toEqual(
			expect.objectContaining({ filename: 'c-invalid.pdf', status: 'validation_failed' }),
		);
		expect(out[3]).toEqual(expect.objectContaining({ filename: 'd.pdf', status: 'completed' }));
		expect(out[4].error).toMatch(/^Item 4: scan \d+ failed: /);
		expect(sb.get().control.getScan(out[4].scan_id as number)?.filename).toBe('e-fail.pdf');
		expect(out[5]).toEqual(expect.objectContaining({ filename: 'f.pdf', status: 'completed' }));
		// The slow scan really finished last.
		const finishedAt = (id: unknown) => Number(sb.get().control.getScan(id as number)?.updatedAt);
		expect(finishedAt(out[0].id)).toBeGreaterThan(finishedAt(out[5].id));
	});

	test('without Continue On Fail a failed scan fails the node with its item', async () => {
		const result = await run(sb.env(), uploadParams({ waitForCompletion: true, options: WAIT }), [
			pdf('a.pdf'),
			pdf('b-fail.pdf'),
			pdf('c.pdf'),
		]);
		expect(result.error?.message).toMatch(/^Item 1: scan \d+ failed: /);
	});

	test('Scan → Get with waiting joins the same poller', async () => {
		sb.get().control.hold(true);
		const uploaded = await run(sb.env(), uploadParams(), pdfs(4));
		const ids = jsonOf(uploaded).map((o) => o.id);
		sb.get().control.clearRequests();
		const pending = run(
			sb.env(),
			{
				resource: 'scan',
				operation: 'get',
				scanId: '={{ $json.id }}',
				waitForCompletion: true,
				options: WAIT,
			},
			ids.map((id) => ({ json: { id } })),
		);
		await until(() => gets().filter((r) => r.path === '/scans').length >= 1);
		sb.get().control.hold(false);
		const result = await pending;
		expect(result.error).toBeUndefined();
		expect(jsonOf(result).map((o) => [o.id, o.status])).toEqual(ids.map((id) => [id, 'completed']));
		expect(
			gets()
				.filter((r) => r.path === '/scans')
				.every((r) => r.query.template_id === '1'),
		).toBe(true);
	});
});

describe('deadlines hold while waiting', () => {
	test('Wait Timeout: every item fails with its own timeout error; the scan keeps processing', async () => {
		sb.get().control.hold(true);
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: { ...WAIT, waitTimeout: 1 } }),
			pdfs(3),
			true,
		);
		const out = jsonOf(result);
		expect(out).toHaveLength(3);
		out.forEach((o, i) => {
			expect(o.error).toMatch(
				new RegExp(
					`^Item ${i}: scan \\d+ did not finish within 1 seconds \\(last status: uploaded\\)`,
				),
			);
			expect(o.scan_id).toEqual(expect.any(Number));
		});
	});

	test('a request in flight does not hold the timeout (the answer would take 30 s)', async () => {
		sb.get().control.addFault({
			method: 'GET',
			path: '^/scans/\\d+$',
			kind: 'latency',
			latencyMs: 30_000,
			times: 5,
		});
		const started = Date.now();
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: { ...WAIT, waitTimeout: 1 } }),
			pdfs(1),
			true,
		);
		expect(jsonOf(result)[0].error).toMatch(/did not finish within 1 seconds/);
		expect(Date.now() - started).toBeLessThan(30_000);
	});

	test('a Retry-After longer than the time left does not hold the timeout', async () => {
		sb.get().control.hold(true);
		sb.get().control.addFault({
			method: 'GET',
			path: '^/scans/\\d+$',
			kind: 'status',
			status: 429,
			headers: { 'Retry-After': '30' },
			times: 5,
		});
		const started = Date.now();
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: { ...WAIT, waitTimeout: 1 } }),
			pdfs(1),
			true,
		);
		expect(jsonOf(result)[0].error).toMatch(/did not finish within 1 seconds/);
		expect(Date.now() - started).toBeLessThan(30_000);
	});

	test('a short Retry-After is waited out and the scan is still delivered', async () => {
		sb.get().control.addFault({
			method: 'GET',
			path: '^/scans/\\d+$',
			kind: 'status',
			status: 429,
			headers: { 'Retry-After': '0' },
			times: 1,
		});
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options: WAIT }),
			pdfs(1),
		);
		expect(result.error).toBeUndefined();
		expect(jsonOf(result)[0].status).toBe('completed');
		expect(gets().some((r) => r.status === 429)).toBe(true);
	});

	test('cancelling the execution stops waiting at once, also during a request in flight', async () => {
		sb.get().control.hold(true);
		sb.get().control.addFault({
			method: 'GET',
			path: '^/scans/\\d+$',
			kind: 'latency',
			latencyMs: 30_000,
			times: 5,
		});
		const original = WorkflowExecute.prototype.processRunExecutionData;
		let execution: ReturnType<typeof original> | undefined;
		const spy = jest
			.spyOn(WorkflowExecute.prototype, 'processRunExecutionData')
			.mockImplementation(function (this: WorkflowExecute, ...args) {
				execution = original.apply(this, args);
				return execution;
			});
		try {
			const started = Date.now();
			const pending = run(
				sb.env(),
				uploadParams({ waitForCompletion: true, options: { ...WAIT, waitTimeout: 60 } }),
				pdfs(2),
			);
			await until(() => gets().length >= 1);
			execution?.cancel();
			const result = await pending;
			expect(Date.now() - started).toBeLessThan(30_000);
			expect(result.output).toEqual([]);
			expect(result.run.status).toBe('canceled');
			expect(result.error?.message).toMatch(
				/^Item 0: stopped waiting for scan \d+ because the execution was cancelled \(last status: uploaded\)/,
			);
		} finally {
			spy.mockRestore();
		}
	});
});

describe('poll interval bounds', () => {
	test('0.01 s is raised to the 0.2 s floor: a held scan is not hammered', async () => {
		sb.get().control.hold(true);
		const options = { pollInterval: 0.01, maxPollInterval: 0.01, waitTimeout: 1 };
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options }),
			pdfs(1),
			true,
		);
		expect(jsonOf(result)[0].error).toMatch(/did not finish within 1 seconds/);
		// At most one read per 0.2 s in 1 s (the old code made ~70).
		expect(gets().length).toBeLessThanOrEqual(6);
	});

	test('an interval over the timer limit (24.8 days) is capped, not overflowed to 1 ms', async () => {
		sb.get().control.hold(true);
		const options = { pollInterval: 3_000_000, maxPollInterval: 3_000_000, waitTimeout: 1 };
		const result = await run(
			sb.env(),
			uploadParams({ waitForCompletion: true, options }),
			pdfs(1),
			true,
		);
		expect(jsonOf(result)[0].error).toMatch(/did not finish within 1 seconds/);
		expect(gets()).toHaveLength(0);
	});

	test('settings: clamped to 0.2 s … 3600 s, defaults for missing or invalid values', () => {
		expect(waitSettings({})).toEqual({ firstDelayMs: 500, maxDelayMs: 10_000, timeoutMs: 300_000 });
		expect(waitSettings({ pollInterval: 0.01, maxPollInterval: 0.05 })).toEqual(
			expect.objectContaining({ firstDelayMs: 200, maxDelayMs: 200 }),
		);
		expect(waitSettings({ pollInterval: 1e9, maxPollInterval: 1e12 })).toEqual(
			expect.objectContaining({ firstDelayMs: 3_600_000, maxDelayMs: 3_600_000 }),
		);
		expect(waitSettings({ pollInterval: 'x', maxPollInterval: -1 })).toEqual(
			expect.objectContaining({ firstDelayMs: 500, maxDelayMs: 10_000 }),
		);
		expect(waitSettings({ pollInterval: 20, maxPollInterval: 5 })).toEqual(
			expect.objectContaining({ firstDelayMs: 20_000, maxDelayMs: 20_000 }),
		);
	});
});
