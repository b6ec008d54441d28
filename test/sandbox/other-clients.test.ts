/** The sandbox's other clients of an account: recent uploads, credit, and slots taken mid-batch (control and HTTP). */
import { startSandbox, Sandbox } from '../../sandbox/server';
import { api, unwrap, postScan } from '../support/sandbox-api';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 30 });
});
afterAll(async () => {
	await sandbox.close();
});
beforeEach(() => sandbox.control.reset());

const control = async (path: string, body: unknown) =>
	await fetch(`${sandbox.origin}/__sandbox${path}`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body),
	});

describe('seedUploads', () => {
	it('adds charged, completed scans spread over the past hour that fill the rolling window and leave it an hour after their creation', async () => {
		const ids = sandbox.control.seedUploads({ count: 4, oldest_age_ms: 40 * 60_000 });
		sandbox.control.setOptions({ rateLimitPerHour: 5 });
		expect(sandbox.control.account().used_scans).toBe(4);
		const listed = unwrap((await api(sandbox, 'GET', '/scans')).body) as Array<{
			id: number;
			created_at: string;
			status: string;
		}>;
		expect(listed.map((s) => s.id)).toEqual([...ids].reverse());
		expect(listed.every((s) => s.status === 'completed')).toBe(true);
		const oldest = Date.parse(listed[listed.length - 1].created_at);
		expect(Date.now() - oldest).toBeGreaterThanOrEqual(40 * 60_000 - 1000);
		expect((await postScan(sandbox)).status).toBe(201);
		expect((await postScan(sandbox)).status).toBe(429);
		sandbox.control.advanceClock(20 * 60_000 + 1000); // the oldest leaves the hour
		expect((await postScan(sandbox)).status).toBe(201);
	});

	it('is reachable over HTTP, and refuses ages of an hour or more', async () => {
		expect((await control('/uploads', { count: 2 })).status).toBe(201);
		expect(sandbox.control.account().used_scans).toBe(2);
		expect((await control('/uploads', { count: 1, oldest_age_ms: 3_600_000 })).status).toBe(400);
	});
});

describe('setCredits and takeAfterUploads', () => {
	it('sets the remaining credit', async () => {
		expect((await control('/credits', { remaining: 1 })).status).toBe(200);
		expect(unwrap((await api(sandbox, 'GET', '/account')).body).remaining_scans).toBe(1);
		expect((await postScan(sandbox)).status).toBe(201);
		expect((await postScan(sandbox)).status).toBe(402);
	});

	it('after K accepted uploads another client takes slots and credit at once', async () => {
		sandbox.control.setOptions({ rateLimitPerHour: 10 });
		expect((await control('/take-after-uploads', { after: 2, slots: 7 })).status).toBe(201);
		sandbox.control.takeAfterUploads({ after: 2, credits: 5 });
		const before = sandbox.control.account().remaining_scans;
		expect((await postScan(sandbox)).status).toBe(201);
		expect((await postScan(sandbox)).status).toBe(201);
		// 2 own + 7 taken: one slot left; the credit dropped by 2 + 7 + 5.
		expect(sandbox.control.account().remaining_scans).toBe(before - 14);
		expect((await postScan(sandbox)).status).toBe(201);
		expect((await postScan(sandbox)).status).toBe(429);
	});
});
