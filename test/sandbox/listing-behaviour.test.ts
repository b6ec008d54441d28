/**
 * The sandbox plays the listing behaviours the API documentation leaves open (issue 25), in
 * process (`sandbox.control.*`) and over HTTP (`/__sandbox/...`): page ends (empty, 404, 422,
 * the last page again), a server that ignores `page`, scans visible late, status changes and
 * reveals while a listing is read, pages served out of order, and statuses the API does not list.
 */
import { Sandbox, startSandbox } from '../../sandbox/server';
import { api, Reply } from '../support/sandbox-api';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.control.reset());

const ids = (items: Array<{ id: number }>): number[] => items.map((s) => s.id);

async function control(method: string, path: string, body?: unknown): Promise<Reply> {
	const res = await fetch(`${sandbox.origin}/__sandbox${path}`, {
		method,
		headers: { 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: res.status, body: (await res.json()) as Reply['body'], headers: res.headers };
}

describe('page ends', () => {
	beforeEach(() => sandbox.control.seedScans({ count: 50 }));

	it('empty by default; 404 or 422 (naming the last page), or the last page again, when set', async () => {
		expect((await api(sandbox, 'GET', '/scans?page=3')).body.data).toEqual([]);

		sandbox.control.setListing({ pageEnd: '404' });
		const missing = await api(sandbox, 'GET', '/scans?page=3');
		expect(missing.status).toBe(404);
		expect(missing.body.message).toBe('Page 3 not found: the listing has 2 pages.');
		expect((await api(sandbox, 'GET', '/scans?page=2')).status).toBe(200);

		sandbox.control.setListing({ pageEnd: '422' });
		const invalid = await api(sandbox, 'GET', '/scans?page=9');
		expect(invalid.status).toBe(422);
		expect(invalid.body.errors).toEqual({ page: ['The page must be at most 2.'] });

		sandbox.control.setListing({ pageEnd: 'last' });
		const last = await api(sandbox, 'GET', '/scans?page=7');
		expect(ids(last.body.data)).toEqual(
			ids((await api(sandbox, 'GET', '/scans?page=2')).body.data),
		);
		expect(last.body.meta.current_page).toBe(2);
	});

	it('a server that ignores page answers page 1 for every page', async () => {
		sandbox.control.setListing({ ignorePage: true });
		const page1 = await api(sandbox, 'GET', '/scans?page=1');
		const page2 = await api(sandbox, 'GET', '/scans?page=2');
		expect(ids(page2.body.data)).toEqual(ids(page1.body.data));
		expect(page2.body.meta.current_page).toBe(1);
	});

	it('reset goes back to the documented choice; bad input is refused', () => {
		sandbox.control.setListing({ pageEnd: '404', ignorePage: true });
		sandbox.control.reset();
		expect(sandbox.control.listing()).toEqual({
			pageEnd: 'empty',
			ignorePage: false,
			pageWaits: null,
			metaPages: null,
			hidden: [],
		});
		expect(() => sandbox.control.setListing({ pageEnd: '500' as never })).toThrow(/pageEnd/);
		expect(() => sandbox.control.setListing({ ignorePage: 'yes' as never })).toThrow(/ignorePage/);
		expect(() => sandbox.control.setListing({ pageWaits: { page: 2, for: 2 } })).toThrow(
			/pageWaits/,
		);
	});
});

describe('scans visible late', () => {
	it('a hidden scan is left out of listings (and found by ID) until revealed', async () => {
		const [first, second] = sandbox.control.seedScans({ count: 2 });
		sandbox.control.hideScans([first]);
		expect(ids((await api(sandbox, 'GET', '/scans')).body.data)).toEqual([second]);
		expect((await api(sandbox, 'GET', `/scans/${first}`)).status).toBe(200);
		sandbox.control.revealScans([first]);
		expect(ids((await api(sandbox, 'GET', '/scans')).body.data)).toEqual([second, first]);
		expect(() => sandbox.control.hideScans(['x' as never])).toThrow(/ids/);
	});
});

describe('while a listing is read', () => {
	it('a status change, new scans and a reveal happen when a chosen listing request arrives', async () => {
		const waiting = sandbox.control.seedScans({ count: 3, status: 'processing' });
		const [hidden] = sandbox.control.seedScans({ count: 1 });
		sandbox.control.hideScans([hidden]);
		sandbox.control.duringListing(1, {
			status: { ids: [waiting[0]], status: 'completed' },
			create: { count: 2 },
			reveal: [hidden],
		});
		expect((await api(sandbox, 'GET', '/scans?status=processing')).body.data).toHaveLength(3);
		const after = await api(sandbox, 'GET', '/scans?status=processing');
		expect(ids(after.body.data)).toEqual([waiting[2], waiting[1]]);
		expect(sandbox.control.getScan(waiting[0])?.status).toBe('completed');
		expect(ids((await api(sandbox, 'GET', '/scans')).body.data)).toHaveLength(6);
	});

	it('an event for one page waits for that page; a page can be served after another', async () => {
		sandbox.control.seedScans({ count: 60 });
		const [late] = sandbox.control.seedScans({ count: 1, status: 'processing' });
		sandbox.control.setListing({ pageWaits: { page: 2, for: 3 } });
		sandbox.control.duringListing(0, { page: 2, status: { ids: [late], status: 'completed' } });
		const page2 = api(sandbox, 'GET', '/scans?status=completed&page=2');
		const page3 = await api(sandbox, 'GET', '/scans?status=completed&page=3');
		// Page 3 was answered before the scan finished (60 completed: 10 on page 3); page 2 after
		// it, so it starts one record lower than page 1 ended (60..36 on page 1 before).
		expect(page3.body.data).toHaveLength(10);
		expect(ids((await page2).body.data)[0]).toBe(36);
		expect(sandbox.control.requests().map((r) => r.query.page)).toEqual(['2', '3']);
	});
});

describe('a status the API does not list', () => {
	it('is shown as given and stops processing; a listed status goes back to normal', async () => {
		const [id] = sandbox.control.seedScans({ count: 1, status: 'processing' });
		sandbox.control.setScanStatus(id, 'cancelled');
		expect((await api(sandbox, 'GET', `/scans/${id}`)).body.data.status).toBe('cancelled');
		sandbox.control.setScanStatus(id, 'completed');
		const scan = (await api(sandbox, 'GET', `/scans/${id}`)).body.data;
		expect(scan.status).toBe('completed');
		expect(scan.extracted_data).not.toBeNull();
		expect(() => sandbox.control.setScanStatus(id, '')).toThrow(/status/);
		expect(() => sandbox.control.setScanStatus(999, 'x')).toThrow(/not found/);
	});
});

describe('over HTTP (/__sandbox)', () => {
	it('sets and reads the listing behaviour, hides and reveals, changes a status, queues an event', async () => {
		const [a, b] = sandbox.control.seedScans({ count: 2, status: 'processing' });
		expect((await control('POST', '/listing', { pageEnd: 'last' })).body).toMatchObject({
			pageEnd: 'last',
		});
		expect((await control('GET', '/listing')).body.pageEnd).toBe('last');
		expect((await control('POST', '/scans/hide', { ids: [a] })).body.hidden).toEqual([a]);
		expect(ids((await api(sandbox, 'GET', '/scans')).body.data)).toEqual([b]);
		expect((await control('POST', '/scans/reveal', { ids: [a] })).body.hidden).toEqual([]);
		expect((await control('POST', `/scans/${a}/status`, { status: 'cancelled' })).status).toBe(200);
		expect(sandbox.control.getScan(a)?.shownStatus).toBe('cancelled');
		const queued = await control('POST', '/during-listing', {
			afterListRequests: 0,
			status: { ids: [b], status: 'completed' },
		});
		expect(queued.status).toBe(201);
		await api(sandbox, 'GET', '/scans');
		expect(sandbox.control.getScan(b)?.status).toBe('completed');
		expect((await control('POST', '/listing', { pageEnd: 'nope' })).status).toBe(400);
		expect((await control('POST', '/during-listing', { afterListRequests: -1 })).status).toBe(400);
	});
});
