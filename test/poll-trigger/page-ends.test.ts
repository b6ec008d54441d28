/**
 * The poll trigger against each page end the spec leaves open (issue 25 §3), and its state as
 * older versions saved it.
 *
 * - A page past the end answered 404 or 422, or with the last page again: the first activation
 *   and the polls go on as with an empty page.
 * - A server that ignores `page`: the poll emits what it could list (page 1), keeps its horizon
 *   below the scans it could not see, and says so in n8n's log; once the service pages again,
 *   the rest come out, each once.
 */
import { PollContext } from 'n8n-core';

import { type Sandbox } from '../../sandbox/server';
import { emittedIds, makePoll, seed, usePollSandbox } from './helpers';

let sandbox: Sandbox;
usePollSandbox((started) => (sandbox = started));

function logWarnings(): jest.Mock {
	const warn = jest.fn();
	jest
		.spyOn(PollContext.prototype, 'logger', 'get')
		.mockReturnValue({ warn, info: jest.fn(), debug: jest.fn(), error: jest.fn() } as never);
	return warn;
}

for (const envelope of ['data', 'bare'] as const) {
	for (const pageEnd of ['404', '422', 'last'] as const) {
		test(`${envelope}: page past the end answered ${pageEnd === 'last' ? 'with the last page again' : pageEnd}: activation over 50 scans, then 30 new ones, once each`, async () => {
			sandbox.control.reset({ envelope });
			sandbox.control.setListing({ pageEnd });
			seed(sandbox, 50, 'processing');
			const trigger = await makePoll(sandbox);
			expect(await trigger.activate()).toBeNull();
			expect(trigger.nodeStaticData.pending).toHaveLength(50);
			const fresh = seed(sandbox, 30);
			expect(emittedIds(await trigger.poll()).sort((a, b) => a - b)).toEqual(fresh);
			expect(await trigger.poll()).toBeNull();
		});
	}
}

test('a server that ignores page: 25 of 30 new scans come out, the horizon stays, a warning says why; the other 5 once it pages', async () => {
	const warn = logWarnings();
	sandbox.control.reset({ envelope: 'bare' });
	const trigger = await makePoll(sandbox);
	seed(sandbox, 3);
	await trigger.activate();
	const horizon = trigger.nodeStaticData.horizon as number;
	sandbox.control.setListing({ ignorePage: true });
	const fresh = seed(sandbox, 30);
	const first = emittedIds(await trigger.poll());
	expect(first.sort((a, b) => a - b)).toEqual(fresh.slice(5));
	expect(trigger.nodeStaticData.horizon).toBe(horizon);
	expect(warn).toHaveBeenCalledWith(
		expect.stringMatching(
			new RegExp(
				`answered a page after page 1 with page 1's scans again: the service seems to ignore \`page\`.*Scans ${horizon + 1} to ${fresh[4]} could not be listed`,
			),
		),
	);
	// Nothing twice while the service still ignores page.
	expect(await trigger.poll()).toBeNull();

	sandbox.control.setListing({ ignorePage: false });
	expect(emittedIds(await trigger.poll()).sort((a, b) => a - b)).toEqual(fresh.slice(0, 5));
	expect(trigger.nodeStaticData.horizon).toBe(Math.max(...fresh));
	expect(await trigger.poll()).toBeNull();
});

test('a server that ignores page with 25 new scans or fewer: nothing to say', async () => {
	const warn = logWarnings();
	sandbox.control.reset({ envelope: 'bare' });
	const trigger = await makePoll(sandbox);
	seed(sandbox, 30);
	await trigger.activate();
	sandbox.control.setListing({ ignorePage: true });
	const fresh = seed(sandbox, 20);
	expect(emittedIds(await trigger.poll()).sort((a, b) => a - b)).toEqual(fresh);
	expect(warn).not.toHaveBeenCalled();
});

test('the first activation against a server that ignores page: the newest 25 are looked at, and the log says so', async () => {
	const warn = logWarnings();
	sandbox.control.reset({ envelope: 'bare' });
	seed(sandbox, 40, 'processing');
	sandbox.control.setListing({ ignorePage: true });
	const trigger = await makePoll(sandbox);
	await trigger.activate();
	expect(trigger.nodeStaticData.pending).toHaveLength(25);
	expect(warn).toHaveBeenCalledWith(
		expect.stringMatching(/seems to ignore `page`.*Unfinished scans below them are not followed/),
	);
});

describe('state saved by an older version (version 1)', () => {
	test('is read: followed scans still come out, new ones too, and version 2 is written', async () => {
		const [waiting] = seed(sandbox, 1, 'processing');
		const old = seed(sandbox, 3);
		const saved = {
			staticData: {
				'node:Document Scanning Poll Trigger': {
					version: 1,
					horizon: Math.max(...old),
					pending: [waiting],
					emitted: [old[2]],
					activatedAt: '2026-01-01T00:00:00.000Z',
					stuck: {},
				},
			},
			saves: 1,
		};
		const trigger = await makePoll(sandbox, undefined, saved);
		sandbox.control.setScanStatus(waiting, 'completed');
		const fresh = seed(sandbox, 2);
		expect(emittedIds(await trigger.poll()).sort((a, b) => a - b)).toEqual([waiting, ...fresh]);
		expect(trigger.savedNodeStaticData).toMatchObject({
			version: 2,
			horizon: Math.max(...fresh),
			pending: [],
			unseen: [],
			startId: Math.max(...old),
		});
		expect(await trigger.poll()).toBeNull();
	});
});
