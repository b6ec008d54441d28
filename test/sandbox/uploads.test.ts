import { DEFAULT_API_KEY, Sandbox, startSandbox } from '../../sandbox/server';
import { jpegBytes, pdfBytes, pngBytes } from '../support/fixtures';
import { api, Reply, unwrap, postScan, waitForStatus } from '../support/sandbox-api';

const MB20 = 20 * 1024 * 1024;

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.control.reset());

describe('POST /scans success', () => {
	it('answers 201 with only id, status, template_id, filename, created_at and uses one credit', async () => {
		const reply = await postScan(sandbox, { templateId: 2, filename: 'note.pdf' });
		expect(reply.status).toBe(201);
		expect(Object.keys(reply.body)).toEqual(['data']);
		expect(reply.body.data).toEqual({
			id: 1,
			status: 'uploaded',
			template_id: 2,
			filename: 'note.pdf',
			created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
		});
		expect(sandbox.control.account()).toMatchObject({
			used_scans: 1,
			remaining_scans: 1999,
			total_scans: 2000,
		});
		const templates = (await api(sandbox, 'GET', '/templates')).body.data;
		expect(templates.find((t: { id: number }) => t.id === 2).usage_count).toBe(1);
	});

	it('answers a bare object with the bare envelope', async () => {
		sandbox.control.setOptions({ envelope: 'bare' });
		const reply = await postScan(sandbox, { filename: 'bare.pdf' });
		expect(reply.status).toBe(201);
		expect(reply.body).toMatchObject({
			id: 1,
			status: 'uploaded',
			filename: 'bare.pdf',
			template_id: 1,
		});
	});

	it.each([
		['PDF', pdfBytes, 'a.pdf'],
		['PDF with an upper-case extension', pdfBytes, 'A.PDF'],
		['PNG', pngBytes, 'b.png'],
		['JPEG as .jpg', jpegBytes, 'c.jpg'],
		['JPEG as .jpeg', jpegBytes, 'd.jpeg'],
	])('accepts %s', async (_label, make, filename) => {
		expect((await postScan(sandbox, { file: make(), filename })).status).toBe(201);
	});

	it('accepts a file of exactly 20 MB', async () => {
		const file = Buffer.alloc(MB20, 0x20);
		pdfBytes().copy(file);
		const reply = await postScan(sandbox, { file, filename: 'big.pdf' });
		expect(reply.status).toBe(201);
	});
});

describe('POST /scans file names', () => {
	it('reads a multipart file name as UTF-8: "Rechnung Müller.pdf" is stored and answered unchanged', async () => {
		const reply = await postScan(sandbox, { filename: 'Rechnung Müller.pdf' });
		expect(reply.status).toBe(201);
		expect(reply.body.data.filename).toBe('Rechnung Müller.pdf');
		expect(sandbox.control.getScan(reply.body.data.id)?.filename).toBe('Rechnung Müller.pdf');
	});

	it('stores the name without its folder by default, and as sent with storedFilename "asSent"', async () => {
		expect((await postScan(sandbox, { filename: 'dir/sub/b.pdf' })).body.data.filename).toBe(
			'b.pdf',
		);
		expect((await postScan(sandbox, { filename: 'c:\\docs\\c.pdf' })).body.data.filename).toBe(
			'c.pdf',
		);
		sandbox.control.setOptions({ storedFilename: 'asSent' });
		expect((await postScan(sandbox, { filename: 'dir/a.pdf' })).body.data.filename).toBe(
			'dir/a.pdf',
		);
	});

	it('answers with a Date header from its own (virtual) clock', async () => {
		sandbox.control.advanceClock(3_600_000);
		const res = await fetch(`${sandbox.baseUrl}/account`, {
			headers: { Authorization: `Bearer ${DEFAULT_API_KEY}` },
		});
		const skew = Date.parse(res.headers.get('date') ?? '') - Date.now();
		expect(skew).toBeGreaterThan(3_500_000);
		expect(skew).toBeLessThan(3_700_000);
	});
});

describe('POST /scans validation (422)', () => {
	it('names both missing fields (map shape)', async () => {
		const reply = await postScan(sandbox, { templateId: null, file: null });
		expect(reply.status).toBe(422);
		expect(reply.body).toEqual({
			error: 'validation_failed',
			message: expect.any(String),
			errors: { template_id: [expect.any(String)], file: [expect.any(String)] },
		});
	});

	it('names the fields in the list shape', async () => {
		sandbox.control.setOptions({ errorsShape: 'list' });
		const reply = await postScan(sandbox, { templateId: 'abc', file: null });
		expect(reply.status).toBe(422);
		expect(reply.body.errors).toEqual([
			{ field: 'template_id', message: expect.stringMatching(/integer/) },
			{ field: 'file', message: expect.stringMatching(/required/) },
		]);
	});

	it.each(['abc', '1.5', '-1', '0', ''])('refuses template_id %p', async (templateId) => {
		const reply = await postScan(sandbox, { templateId });
		expect(reply.status).toBe(422);
		expect(Object.keys(reply.body.errors)).toEqual(['template_id']);
	});

	it('refuses a body that is not multipart, naming both fields', async () => {
		const reply = await api(sandbox, 'POST', '/scans', { json: { template_id: 1 } });
		expect(reply.status).toBe(422);
		expect(Object.keys(reply.body.errors).sort()).toEqual(['file', 'template_id']);
	});

	it('refuses file sent as a text field', async () => {
		const form = new FormData();
		form.append('template_id', '1');
		form.append('file', 'not a file');
		const res = await fetch(`${sandbox.baseUrl}/scans`, {
			method: 'POST',
			body: form,
			headers: { 'X-API-Key': 'sk_test_sandbox_key' },
		});
		expect(res.status).toBe(422);
		expect(((await res.json()) as Reply['body']).errors.file[0]).toMatch(/must be a file/);
	});

	it.each([
		['an empty file', Buffer.alloc(0), 'empty.pdf', /empty/],
		['PDF content named .png', pdfBytes(), 'x.png', /does not match/],
		['PNG content named .pdf', pngBytes(), 'x.pdf', /does not match/],
		['text content named .pdf', Buffer.from('hello world'), 'x.pdf', /content is not/],
		['PDF content named .txt', pdfBytes(), 'x.txt', /file name must end/],
		['PDF content without an extension', pdfBytes(), 'document', /file name must end/],
		['a GIF', Buffer.from('GIF89a.....'), 'x.gif', /file name must end/],
	])('refuses %s', async (_label, file, filename, message) => {
		const reply = await postScan(sandbox, { file, filename });
		expect(reply.status).toBe(422);
		expect(Object.keys(reply.body.errors)).toEqual(['file']);
		expect(reply.body.errors.file.join(' ')).toMatch(message);
		expect(sandbox.control.account().used_scans).toBe(0);
	});

	it('refuses a file one byte over 20 MB', async () => {
		const file = Buffer.alloc(MB20 + 1, 0x20);
		pdfBytes().copy(file);
		const reply = await postScan(sandbox, { file, filename: 'huge.pdf' });
		expect(reply.status).toBe(422);
		expect(reply.body.errors.file[0]).toMatch(/20 MB/);
	});
});

describe('POST /scans 404, 402, 409, 429', () => {
	it.each([
		['an unknown template', 99],
		['an inactive template', 5],
	])('answers 404 with a message for %s', async (_label, templateId) => {
		const reply = await postScan(sandbox, { templateId });
		expect(reply.status).toBe(404);
		expect(reply.body).toEqual({
			error: 'not_found',
			message: `Template ${templateId} not found.`,
		});
	});

	it('answers 402 when no credit is left; a failed scan gives its credit back', async () => {
		sandbox.control.createAccount({ apiKeys: ['poor'], credits: 1 });
		const template = sandbox.control.createTemplate({
			apiKey: 'poor',
			name: 'T',
			extraction_mode: 'scalar',
		});
		const first = await postScan(sandbox, {
			key: 'poor',
			templateId: template.id,
			filename: 'will-fail.pdf',
		});
		expect(first.status).toBe(201);
		const second = await postScan(sandbox, { key: 'poor', templateId: template.id });
		expect(second.status).toBe(402);
		expect(second.body).toEqual({ error: 'insufficient_credits', message: expect.any(String) });

		const failed = await waitForStatus(sandbox, first.body.data.id, ['failed'], undefined, 'poor');
		expect(failed.error_message).toEqual(expect.any(String));
		expect(sandbox.control.account('poor')).toMatchObject({ used_scans: 0, remaining_scans: 1 });
		expect((await postScan(sandbox, { key: 'poor', templateId: template.id })).status).toBe(201);
	});

	it('answers 409 for the same content with the same template, unless the earlier scan failed', async () => {
		const file = pdfBytes();
		expect((await postScan(sandbox, { file, templateId: 1, filename: 'a.pdf' })).status).toBe(201);
		const dup = await postScan(sandbox, { file, templateId: 1, filename: 'renamed.pdf' });
		expect(dup.status).toBe(409);
		expect(dup.body).toEqual({
			error: 'duplicate_upload',
			message: expect.stringMatching(/already uploaded/),
		});
		expect((await postScan(sandbox, { file, templateId: 2 })).status).toBe(201);

		const failing = pdfBytes();
		const failed = await postScan(sandbox, { file: failing, filename: 'fail.pdf' });
		await waitForStatus(sandbox, failed.body.data.id, ['failed']);
		expect((await postScan(sandbox, { file: failing, filename: 'fail.pdf' })).status).toBe(201);
		expect(sandbox.control.account().used_scans).toBe(3);
	});

	it('answers 429 above the rolling-hour limit, with Retry-After when enabled, and frees slots as the hour rolls', async () => {
		sandbox.control.reset({ rateLimitPerHour: 3, retryAfter: true });
		expect((await postScan(sandbox)).status).toBe(201);
		expect((await postScan(sandbox)).status).toBe(201);
		sandbox.control.advanceClock(30 * 60 * 1000);
		expect((await postScan(sandbox)).status).toBe(201);

		const limited = await postScan(sandbox);
		expect(limited.status).toBe(429);
		expect(limited.body).toEqual({ error: 'too_many_requests', message: expect.any(String) });
		const retryAfter = Number(limited.headers.get('retry-after'));
		expect(retryAfter).toBeGreaterThan(1795);
		expect(retryAfter).toBeLessThanOrEqual(1800);
		expect(sandbox.control.account().used_scans).toBe(3);

		sandbox.control.advanceClock(30 * 60 * 1000 + 1000); // the first two leave the window
		expect((await postScan(sandbox)).status).toBe(201);
		expect((await postScan(sandbox)).status).toBe(201);
		expect((await postScan(sandbox)).status).toBe(429);
	});

	it('sends no Retry-After by default', async () => {
		sandbox.control.reset({ rateLimitPerHour: 1 });
		expect((await postScan(sandbox)).status).toBe(201);
		const limited = await postScan(sandbox);
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBeNull();
	});

	it('checks in the order 422, 404, 429, 402, 409', async () => {
		sandbox.control.createAccount({ apiKeys: ['order'], credits: 1 });
		const { id } = sandbox.control.createTemplate({
			apiKey: 'order',
			name: 'T',
			extraction_mode: 'scalar',
		});
		sandbox.control.setOptions({ rateLimitPerHour: 1 });
		const file = pdfBytes();
		expect((await postScan(sandbox, { key: 'order', templateId: id, file })).status).toBe(201);
		// Now: no credit left, rate limit reached, and `file` is a duplicate.
		expect((await postScan(sandbox, { key: 'order', templateId: 99, file: null })).status).toBe(
			422,
		);
		expect((await postScan(sandbox, { key: 'order', templateId: 99, file })).status).toBe(404);
		expect((await postScan(sandbox, { key: 'order', templateId: id, file })).status).toBe(429);
		sandbox.control.setOptions({ rateLimitPerHour: 200 });
		expect((await postScan(sandbox, { key: 'order', templateId: id, file })).status).toBe(402);
		sandbox.control.reset();
		sandbox.control.createAccount({ apiKeys: ['order'], credits: 5 });
		const again = sandbox.control.createTemplate({
			apiKey: 'order',
			name: 'T',
			extraction_mode: 'scalar',
		});
		expect((await postScan(sandbox, { key: 'order', templateId: again.id, file })).status).toBe(
			201,
		);
		expect((await postScan(sandbox, { key: 'order', templateId: again.id, file })).status).toBe(
			409,
		);
	});
});

describe('GET /account', () => {
	it('returns the balance in both envelopes', async () => {
		await postScan(sandbox);
		const wrapped = await api(sandbox, 'GET', '/account');
		expect(wrapped.body).toEqual({
			data: { remaining_scans: 1999, total_scans: 2000, used_scans: 1 },
		});
		sandbox.control.setOptions({ envelope: 'bare' });
		expect((await api(sandbox, 'GET', '/account')).body).toEqual({
			remaining_scans: 1999,
			total_scans: 2000,
			used_scans: 1,
		});
		expect(unwrap(wrapped.body).remaining_scans).toBe(1999);
	});
});
