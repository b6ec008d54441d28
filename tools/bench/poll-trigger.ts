/**
 * Figures for the Document Scanning Poll Trigger: requests and time of one poll by the
 * number of scans finished since the previous poll, through n8n-core's PollContext against
 * the sandbox (in process). Prints figures; asserts nothing.
 *
 *   npm run build && npm run bench -- poll-trigger
 */
import { DEFAULT_API_KEY, startSandbox } from '../../sandbox/server';
import { PollHarness } from '../../test/support/poll-harness';

const OLDER_SCANS = 500;
const STEPS = [0, 1, 25, 2000];

export async function main(): Promise<void> {
	const sandbox = await startSandbox({ processingDelayMs: 20 });
	try {
		const trigger = await PollHarness.create({
			parameters: { events: ['scan.completed', 'scan.failed'] },
			env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY },
		});
		sandbox.control.seedScans({ count: OLDER_SCANS });
		await trigger.activate();
		console.log(`poll trigger, ${OLDER_SCANS} older scans in the account (${process.version}):`);
		for (const count of STEPS) {
			if (count > 0) sandbox.control.seedScans({ count });
			sandbox.control.clearRequests();
			const started = process.hrtime.bigint();
			const items = await trigger.poll();
			const ms = Number(process.hrtime.bigint() - started) / 1e6;
			const requests = sandbox.control.requests().length;
			console.log(
				`  ${count} new finished scans: ${items?.length ?? 0} items, ${requests} requests, ${ms.toFixed(0)} ms`,
			);
		}
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) {
	main().then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
