import { readdirSync, readFileSync } from 'fs';
import path from 'path';

/*
 * n8n 2.x (n8n-workflow 2.40) no longer exports sleepWithAbort: the nodes imported it directly and
 * every wait or retry pause failed there with "sleepWithAbort is not a function" (found by
 * `npm run e2e -- --n8n 2.40.7`). shared/pause.ts is now the only place that may touch it.
 */

type PauseModule = typeof import('../../nodes/shared/pause');

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		return entry.isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
	});
}

/** shared/pause.ts loaded against an n8n-workflow without sleepWithAbort, as n8n 2.40 ships it. */
function pauseWithoutSleepWithAbort(): PauseModule {
	let loaded: PauseModule | undefined;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => {
			const { sleepWithAbort: _dropped, ...rest } = jest.requireActual('n8n-workflow');
			return rest;
		});
		loaded = require('../../nodes/shared/pause') as PauseModule;
	});
	jest.dontMock('n8n-workflow');
	return loaded!;
}

describe('pause (waits that work on every n8n line)', () => {
	afterEach(() => jest.useRealTimers());

	it('no node or credential imports sleepWithAbort from n8n-workflow except shared/pause.ts', () => {
		const root = path.join(__dirname, '..', '..');
		const offenders = [
			...sourceFiles(path.join(root, 'nodes')),
			...sourceFiles(path.join(root, 'credentials')),
		]
			.filter((file) => !file.endsWith(path.join('shared', 'pause.ts')))
			.filter((file) => /\bsleepWithAbort\b/.test(readFileSync(file, 'utf8')))
			.map((file) => path.relative(root, file));
		expect(offenders).toEqual([]);
	});

	it('without sleepWithAbort: waits the whole time, then resolves', async () => {
		jest.useFakeTimers();
		const { pause } = pauseWithoutSleepWithAbort();
		let done = false;
		const waiting = pause(2_500).then(() => (done = true));
		await jest.advanceTimersByTimeAsync(2_400);
		expect(done).toBe(false);
		await jest.advanceTimersByTimeAsync(100);
		await waiting;
		expect(done).toBe(true);
	});

	it('without sleepWithAbort: an abort rejects at once and leaves at most one short timer', async () => {
		jest.useFakeTimers();
		const { pause, PauseAbortedError, PAUSE_SLICE_MS } = pauseWithoutSleepWithAbort();
		const controller = new AbortController();
		const waiting = pause(600_000, controller.signal);
		await jest.advanceTimersByTimeAsync(2_500);
		controller.abort();
		await expect(waiting).rejects.toBeInstanceOf(PauseAbortedError);
		expect(jest.getTimerCount()).toBeLessThanOrEqual(1);
		await jest.advanceTimersByTimeAsync(PAUSE_SLICE_MS);
		expect(jest.getTimerCount()).toBe(0);
	});

	it('without sleepWithAbort: an already aborted signal rejects without waiting', async () => {
		const { pause, PauseAbortedError } = pauseWithoutSleepWithAbort();
		const controller = new AbortController();
		controller.abort();
		await expect(pause(600_000, controller.signal)).rejects.toBeInstanceOf(PauseAbortedError);
	});

	it('with sleepWithAbort (n8n 1.x): uses it', async () => {
		const workflow = jest.requireActual('n8n-workflow');
		const controller = new AbortController();
		controller.abort();
		const { pause } = jest.requireActual('../../nodes/shared/pause') as PauseModule;
		// n8n-workflow's own rejection (ManualExecutionCancelledError), not the fallback's.
		await expect(pause(10, controller.signal)).rejects.toBeInstanceOf(
			workflow.ManualExecutionCancelledError,
		);
	});
});
