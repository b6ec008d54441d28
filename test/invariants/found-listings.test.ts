/**
 * Cases the generator found for Get Many and the poll trigger (issue 33 §5-§7), kept as tests.
 * `npm run invariants -- --kinds getMany,poll --runs 200 --seed 11` found the first.
 */
import { replayCase } from './generator';

test('invariant 8: 82 finished scans listed without every field between two polls all come out, 25 a poll (brief records are read by ID, the rest at the next polls)', async () => {
	const broken = await replayCase({
		kind: 'poll',
		world: {
			envelope: 'data',
			listedScans: 'brief',
			duplicateCheck: 'beforeLimits',
			retryAfter: false,
			pageEnd: 'empty',
			ignorePage: false,
			metaPages: null,
			failedBody: 'id',
			storedFilename: 'asSent',
			latencyMs: 3,
			rateLimit: 200,
			credits: 2000,
			hourFill: 0,
			history: [{ count: 1, status: 'completed', template: 2 }],
			authHeader: 'xApiKey',
		},
		settings: {
			events: ['scan.completed', 'scan.failed'],
			includeValidationFailed: true,
			splitIntoRows: false,
			includeFullScan: false,
		},
		rounds: [
			{
				finished: [
					{ count: 26, status: 'completed', template: 1 },
					{ count: 26, status: 'completed', template: 1 },
				],
				processing: 30,
				hidden: 0,
				faults: [{ on: 'listing', kind: 'redirect', status: 301, to: 'same', after: 0, times: 1 }],
				restart: true,
			},
		],
	});
	expect(broken).toEqual([]);
}, 120_000);
