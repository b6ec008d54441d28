/**
 * Document Scanning Poll Trigger: every finished scan exactly once, across polls, long
 * pauses, out-of-order completion and failing polls. Runs the node's poll() in n8n-core's
 * PollContext against the sandbox over HTTP.
 */
import { type Sandbox, startSandbox } from '../../sandbox/server';
import { emittedIds, makePoll, range, requestLines, seed, waitFinished } from './helpers';
import { uploadScan } from '../support/sandbox-api';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.control.reset());

describe('first activation', () => {
	test('starts from the activation: no history, state saved, the last day looked through', async () => {
		const history = seed(sandbox, 30);
		seed(sandbox, 2, 'failed');
		const trigger = await makePoll(sandbox);
		sandbox.control.clearRequests();

		expect(await trigger.activate()).toBeNull();
		// All 32 scans are from the last 24 hours: both pages are read for unfinished ones.
		expect(requestLines(sandbox)).toEqual(['GET /scans?page=1', 'GET /scans?page=2']);
		expect(trigger.savedNodeStaticData).toMatchObject({
			version: 2,
			horizon: history.length + 2,
			pending: [],
			emitted: [],
		});

		// Nothing changed: one page, nothing emitted.
		sandbox.control.clearRequests();
		expect(await trigger.poll()).toBeNull();
		expect(requestLines(sandbox)).toEqual(['GET /scans?page=1']);
	});

	test('an account without scans: the first scans after activation come out', async () => {
		const trigger = await makePoll(sandbox);
		expect(await trigger.activate()).toBeNull();
		const ids = seed(sandbox, 3);
		expect(emittedIds(await trigger.poll()).sort((a, b) => a - b)).toEqual(ids);
		expect(await trigger.poll()).toBeNull();
	});

	test('a scan still processing at activation comes out when it finishes', async () => {
		sandbox.control.hold(true);
		const running = await uploadScan(sandbox, 'running.pdf');
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		expect(trigger.nodeStaticData.pending).toEqual([running]);
		expect(await trigger.poll()).toBeNull();

		sandbox.control.hold(false);
		await waitFinished(sandbox, running);
		expect(emittedIds(await trigger.poll())).toEqual([running]);
		expect(await trigger.poll()).toBeNull();
	});
});

test('out-of-order completion: a scan created earlier and finished later comes out once, later', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();

	sandbox.control.hold(true);
	const early = await uploadScan(sandbox, 'early.pdf');
	const [late] = seed(sandbox, 1); // created after `early`, already finished
	expect(emittedIds(await trigger.poll())).toEqual([late]);
	expect(trigger.nodeStaticData.pending).toEqual([early]);

	sandbox.control.hold(false);
	await waitFinished(sandbox, early);
	expect(emittedIds(await trigger.poll())).toEqual([early]);
	expect(await trigger.poll()).toBeNull();
	expect(trigger.nodeStaticData.pending).toEqual([]);
});

test('a pending scan deeper than the pages read is fetched on its own, and still comes out once', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	sandbox.control.hold(true);
	const slow = await uploadScan(sandbox, 'slow.pdf');
	expect(await trigger.poll()).toBeNull();

	const burst = seed(sandbox, 40);
	expect(emittedIds(await trigger.poll())).toEqual(burst);

	// Nothing new: page 1 no longer holds the pending scan, so it is asked for by ID.
	sandbox.control.clearRequests();
	expect(await trigger.poll()).toBeNull();
	expect(requestLines(sandbox)).toEqual(['GET /scans?page=1', `GET /scans/${slow}`]);

	sandbox.control.hold(false);
	await waitFinished(sandbox, slow);
	expect(emittedIds(await trigger.poll())).toEqual([slow]);
	sandbox.control.clearRequests();
	expect(await trigger.poll()).toBeNull();
	expect(requestLines(sandbox)).toEqual(['GET /scans?page=1']);
});

describe.each(['data', 'bare'] as const)(
	'more than 25 new results between two polls (%s envelope)',
	(envelope) => {
		test('all come out, each once, reading pages in proportion', async () => {
			sandbox.control.setOptions({ envelope });
			const before = seed(sandbox, 7);
			const trigger = await makePoll(sandbox);
			await trigger.activate();

			const fresh = seed(sandbox, 60);
			sandbox.control.clearRequests();
			const items = await trigger.poll();
			expect(emittedIds(items)).toEqual(fresh);
			expect(emittedIds(items).some((id) => before.includes(id))).toBe(false);
			// 60 new scans: pages 1-3 (page 3 reaches the horizon).
			expect(requestLines(sandbox)).toEqual([
				'GET /scans?page=1',
				'GET /scans?page=2',
				'GET /scans?page=3',
			]);

			sandbox.control.clearRequests();
			expect(await trigger.poll()).toBeNull();
			expect(requestLines(sandbox)).toEqual(['GET /scans?page=1']);
		});
	},
);

describe('a poll failing halfway through the pages emits nothing and loses nothing', () => {
	test.each([
		['429 without Retry-After', { kind: 'status' as const, status: 429 }],
		['500 on every retry', { kind: 'status500' as const, times: 4 }],
	])('%s on page 2', async (_label, fault) => {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const fresh = seed(sandbox, 60);
		const stateBefore = JSON.stringify(trigger.nodeStaticData);

		trigger.onRequest((request) => {
			if ((request.qs as { page?: number } | undefined)?.page === 2) {
				sandbox.control.addFault({ method: 'GET', path: '^/scans$', ...fault });
				trigger.onRequest(undefined);
			}
		});
		await expect(trigger.poll()).rejects.toThrow(
			fault.kind === 'status' ? /Rate limit/ : /internal error/,
		);
		expect(JSON.stringify(trigger.nodeStaticData)).toBe(stateBefore);
		expect(sandbox.control.requests().some((r) => r.query.page === '2' && r.fault)).toBe(true);

		expect(emittedIds(await trigger.poll())).toEqual(fresh);
		expect(await trigger.poll()).toBeNull();
	});

	test('a dropped connection on page 1 (every retry) leaves the state as it was', async () => {
		const trigger = await makePoll(sandbox);
		await trigger.activate();
		const fresh = seed(sandbox, 3);
		const stateBefore = JSON.stringify(trigger.nodeStaticData);
		sandbox.control.addFault({ method: 'GET', path: '^/scans$', kind: 'drop', times: 4 });
		await expect(trigger.poll()).rejects.toThrow(/Could not reach/);
		expect(JSON.stringify(trigger.nodeStaticData)).toBe(stateBefore);
		expect(emittedIds(await trigger.poll())).toEqual(fresh);
	});
});

test('two overlapping polls emit each scan once between them', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const fresh = seed(sandbox, 30);
	const [a, b] = await Promise.all([trigger.poll(), trigger.poll()]);
	const all = [...emittedIds(a), ...emittedIds(b)].sort((x, y) => x - y);
	expect(all).toEqual(fresh);
});

test('the set of emitted IDs stays bounded', async () => {
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	const fresh = seed(sandbox, 1100);
	expect(emittedIds(await trigger.poll())).toHaveLength(1100);
	const emitted = trigger.nodeStaticData.emitted as number[];
	expect(emitted).toHaveLength(1000);
	expect(emitted).toEqual(range(fresh[100], fresh[1099]));
	expect(await trigger.poll()).toBeNull();
});
