/** Helpers for the poll trigger tests: a sandbox, poll harnesses, scans in chosen states. */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Sandbox, startSandbox } from '../../sandbox/server';
import { ALL_EVENTS } from '../support/fixtures';
import { PollHarness, type SavedWorkflow } from '../support/poll-harness';

/**
 * One sandbox for a test file (20 ms processing steps), reset before each test, closed at the end;
 * mocks are restored after each test. `set` receives it once started.
 */
export function usePollSandbox(set: (sandbox: Sandbox) => void): void {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ processingDelayMs: 20 });
		set(sandbox);
	});
	afterAll(async () => await sandbox?.close());
	beforeEach(() => sandbox?.control.reset());
	afterEach(() => jest.restoreAllMocks());
}

export async function makePoll(
	sandbox: Sandbox,
	parameters: INodeParameters = { events: ALL_EVENTS },
	saved?: SavedWorkflow,
): Promise<PollHarness> {
	return await PollHarness.create({
		parameters,
		env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY },
		saved,
	});
}

/** Scans created directly in `status` (no processing, no credit). */
export function seed(
	sandbox: Sandbox,
	count: number,
	status = 'completed',
	templateId = 1,
): number[] {
	return sandbox.control.seedScans({ count, status: status as never, template_id: templateId });
}

/**
 * Waits until the sandbox reports a final status for the scan (a condition wait on the
 * sandbox's own state, ended by its processing timers, not a fixed delay).
 */
export async function waitFinished(
	sandbox: Sandbox,
	id: number,
	timeoutMs = 20_000,
): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const status = sandbox.control.getScan(id)?.status;
		if (status === 'completed' || status === 'validation_failed' || status === 'failed')
			return status;
		if (Date.now() > deadline) throw new Error(`Scan ${id} did not finish (status ${status})`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

/** Scan IDs of emitted items (`data.scan_id`). */
export function emittedIds(items: INodeExecutionData[] | null): number[] {
	return (items ?? []).map((item) => (item.json.data as IDataObject).scan_id as number);
}

/** The API requests the sandbox saw since the last clear, as "GET /scans?page=2". */
export function requestLines(sandbox: Sandbox): string[] {
	return sandbox.control.requests().map((r) => {
		const query = new URLSearchParams(r.query as Record<string, string>).toString();
		return `${r.method} ${r.path}${query ? `?${query}` : ''}`;
	});
}

export function range(from: number, to: number): number[] {
	return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
