import { Sandbox, startSandbox } from '../../sandbox/server';
import { api } from '../support/sandbox-api';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.control.reset());

const ids = (items: Array<{ id: number }>): number[] => items.map((s) => s.id);
const range = (from: number, to: number): number[] =>
	Array.from({ length: from - to + 1 }, (_, i) => from - i);

describe('GET /scans pagination', () => {
	beforeEach(() => {
		sandbox.control.seedScans({ count: 62 });
	});

	it('pages newest first, 25 per page, with meta and links (data envelope)', async () => {
		const page1 = (await api(sandbox, 'GET', '/scans')).body;
		expect(Object.keys(page1)).toEqual(['data', 'meta', 'links']);
		expect(ids(page1.data)).toEqual(range(62, 38));
		expect(page1.meta).toEqual({ current_page: 1, last_page: 3, per_page: 25, total: 62 });
		expect(page1.links).toEqual({
			first: `${sandbox.baseUrl}/scans?page=1`,
			last: `${sandbox.baseUrl}/scans?page=3`,
			prev: null,
			next: `${sandbox.baseUrl}/scans?page=2`,
		});

		const page2 = (await api(sandbox, 'GET', '/scans?page=2')).body;
		expect(ids(page2.data)).toEqual(range(37, 13));
		expect(page2.links.prev).toBe(`${sandbox.baseUrl}/scans?page=1`);
		expect(page2.links.next).toBe(`${sandbox.baseUrl}/scans?page=3`);

		const page3 = (await api(sandbox, 'GET', '/scans?page=3')).body;
		expect(ids(page3.data)).toEqual(range(12, 1));
		expect(page3.meta.current_page).toBe(3);
		expect(page3.links.next).toBeNull();

		const beyond = (await api(sandbox, 'GET', '/scans?page=4')).body;
		expect(beyond.data).toEqual([]);
		expect(beyond.meta).toMatchObject({ current_page: 4, last_page: 3, total: 62 });
		expect(beyond.links.next).toBeNull();
	});

	it('returns bare arrays with the bare envelope; the end is a short, then an empty page', async () => {
		sandbox.control.setOptions({ envelope: 'bare' });
		const sizes: number[] = [];
		const all: number[] = [];
		for (let page = 1; page <= 4; page += 1) {
			const body = (await api(sandbox, 'GET', `/scans?page=${page}`)).body;
			expect(Array.isArray(body)).toBe(true);
			sizes.push(body.length);
			all.push(...ids(body));
		}
		expect(sizes).toEqual([25, 25, 12, 0]);
		expect(all).toEqual(range(62, 1));
	});

	it('lists full scan objects', async () => {
		const [first] = (await api(sandbox, 'GET', '/scans')).body.data;
		expect(Object.keys(first).sort()).toEqual(
			[
				'id',
				'status',
				'filename',
				'template_id',
				'confidence',
				'extracted_data',
				'reviewed_data',
				'validation_errors',
				'is_partial',
				'error_message',
				'created_at',
				'updated_at',
			].sort(),
		);
	});
});

describe('GET /scans filters', () => {
	it('filters by status and template_id, and keeps the filters in the links', async () => {
		sandbox.control.seedScans({ count: 30, status: 'failed', template_id: 2 });
		sandbox.control.seedScans({ count: 4, status: 'completed', template_id: 2 });
		sandbox.control.seedScans({ count: 3, status: 'failed', template_id: 1 });

		const failed = (await api(sandbox, 'GET', '/scans?status=failed')).body;
		expect(failed.meta.total).toBe(33);
		expect(failed.data.every((s: { status: string }) => s.status === 'failed')).toBe(true);

		const both = (await api(sandbox, 'GET', '/scans?status=failed&template_id=2')).body;
		expect(both.meta.total).toBe(30);
		expect(both.links.next).toBe(`${sandbox.baseUrl}/scans?status=failed&template_id=2&page=2`);
		expect(both.data.every((s: { template_id: number }) => s.template_id === 2)).toBe(true);

		expect((await api(sandbox, 'GET', '/scans?template_id=1')).body.meta.total).toBe(3);
		expect((await api(sandbox, 'GET', '/scans?template_id=77')).body.data).toEqual([]);
		expect((await api(sandbox, 'GET', '/scans?status=')).body.meta.total).toBe(37);
	});

	it.each([
		['page=0', 'page'],
		['page=abc', 'page'],
		['page=1.5', 'page'],
		['status=done', 'status'],
		['template_id=x', 'template_id'],
	])('answers 422 for %s, naming the parameter', async (query, field) => {
		const map = await api(sandbox, 'GET', `/scans?${query}`);
		expect(map.status).toBe(422);
		expect(Object.keys(map.body.errors)).toEqual([field]);
		sandbox.control.setOptions({ errorsShape: 'list' });
		const list = await api(sandbox, 'GET', `/scans?${query}`);
		expect(list.body.errors).toEqual([{ field, message: expect.any(String) }]);
	});
});

describe('GET /templates', () => {
	it('lists active templates as {data: [...]}, in both envelope settings', async () => {
		const expected = [
			[1, 'Invoice', 'scalar'],
			[2, 'Delivery note', 'tabular'],
			[3, 'Invoice with line items', 'mixed'],
			[4, 'Receipt photo', 'vision'],
		];
		for (const envelope of ['data', 'bare'] as const) {
			sandbox.control.setOptions({ envelope });
			const body = (await api(sandbox, 'GET', '/templates')).body;
			expect(Object.keys(body)).toEqual(['data']);
			expect(
				body.data.map((t: { id: number; name: string; extraction_mode: string }) => [
					t.id,
					t.name,
					t.extraction_mode,
				]),
			).toEqual(expected);
		}
		const [first] = (await api(sandbox, 'GET', '/templates')).body.data;
		expect(Object.keys(first)).toEqual([
			'id',
			'name',
			'extraction_mode',
			'usage_count',
			'created_at',
		]);
		expect(first.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
	});

	it('lists a template created through the control surface unless it is inactive', async () => {
		const active = sandbox.control.createTemplate({ name: 'Extra', extraction_mode: 'vision' });
		sandbox.control.createTemplate({ name: 'Hidden', extraction_mode: 'vision', active: false });
		const names = (await api(sandbox, 'GET', '/templates')).body.data.map(
			(t: { name: string }) => t.name,
		);
		expect(names).toEqual([
			'Invoice',
			'Delivery note',
			'Invoice with line items',
			'Receipt photo',
			'Extra',
		]);
		expect(active.id).toBe(6);
	});
});
