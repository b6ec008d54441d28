/**
 * Cases the generator found for uploads, kept as tests. `npm run invariants -- --runs 200 --seed 13`
 * found the first: the limits check reads GET /account and the hour's listing side by side; the
 * account answered a redirect to another origin (refused), and the execution failed while the
 * hour's listing went on reading pages after it had returned.
 */
import { replayCase } from './generator';

test('invariant 5: a limits check whose account read fails ends with its listing: no request after the execution returned', async () => {
	const broken = await replayCase({
		kind: 'upload',
		world: {
			envelope: 'data',
			listedScans: 'brief',
			duplicateCheck: 'beforeLimits',
			retryAfter: false,
			pageEnd: 'empty',
			ignorePage: false,
			metaPages: 20000,
			failedBody: 'topLevel',
			storedFilename: 'basename',
			latencyMs: 0,
			rateLimit: 200,
			credits: 2000,
			hourFill: 150,
			history: [
				{
					count: 60,
					status: 'completed',
					template: 1,
				},
			],
			authHeader: 'authorization',
		},
		settings: {
			version: 1,
			onDuplicate: 'error',
			waitForCompletion: false,
			output: 'raw',
			continueOnFail: false,
		},
		runs: [
			{
				docs: [
					{
						doc: 0,
						name: 0,
						onDuplicate: 'error',
					},
					{
						doc: 1,
						name: 0,
						onDuplicate: 'error',
					},
				],
				faults: [
					{
						on: 'account',
						kind: 'redirect',
						status: 301,
						to: 'other',
						after: 0,
						times: 1,
					},
				],
				activity: [
					{
						on: 'listing',
						after: 0,
						what: 'create',
						count: 25,
						template: 1,
					},
				],
				laterMs: 0,
			},
		],
	});
	expect(broken).toEqual([]);
}, 120_000);
