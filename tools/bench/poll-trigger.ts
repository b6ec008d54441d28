/**
 * Figures for the Document Scanning Poll Trigger: requests and time of one poll by the
 * number of scans finished since the previous poll, through n8n-core's PollContext against
 * the sandbox (in process). Prints figures; asserts nothing.
 *
 *   npm run build && npm run bench -- poll-trigger [--save]
 *
 * With `--save` the figures go into docs/benchmarks/results.json (part "poll-trigger").
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

import { DEFAULT_API_KEY, startSandbox } from '../../sandbox/server';
import { PollHarness } from '../../test/support/poll-harness';
import { enginePart, saveParts, wantsSave, watchLoad } from './results';

const OLDER_SCANS = 500;
const STEPS = [0, 1, 25, 2000];

interface Poll {
	newScans: number;
	items: number;
	requests: number;
	ms: number;
}

export async function main(): Promise<void> {
	const sandbox = await startSandbox({ processingDelayMs: 20 });
	const load = watchLoad();
	const polls: Poll[] = [];
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
			polls.push({ newScans: count, items: items?.length ?? 0, requests, ms: Math.round(ms) });
			console.log(
				`  ${count} new finished scans: ${items?.length ?? 0} items, ${requests} requests, ${ms.toFixed(0)} ms`,
			);
		}
	} finally {
		await sandbox.close();
	}
	if (wantsSave()) {
		const file = saveParts({
			'poll-trigger': enginePart({ olderScans: OLDER_SCANS, polls }, load()),
		});
		spawnSync(process.execPath, [path.join(__dirname, 'report.mjs')], { stdio: 'inherit' });
		console.log(`saved: poll-trigger into ${file}`);
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
