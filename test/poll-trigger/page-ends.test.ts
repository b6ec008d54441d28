/**
 * The poll trigger against each page end the spec leaves open (issue 25 §3), and its state as
 * older versions saved it.
 *
 * - A page past the end answered 404 or 422, or with the last page again: the first activation
 *   and the polls go on as with an empty page.
 * - A server that ignores `page`: a poll that cannot list every scan made since the last one
 *   fails naming them, emits nothing and keeps its state; once the service pages again, they
 *   all come out, each once (issue 33 §7).
 */
import { PollContext } from 'n8n-core';
import type { NodeOperationError } from 'n8n-workflow';

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

test('a server that ignores page, 30 new scans: the poll fails naming the 5 it could not list and emits nothing; once it pages, all 30 come out once', async () => {
	sandbox.control.reset({ envelope: 'bare' });
	const trigger = await makePoll(sandbox);
	seed(sandbox, 3);
	await trigger.activate();
	const horizon = trigger.nodeStaticData.horizon as number;
	sandbox.control.setListing({ ignorePage: true });
	const fresh = seed(sandbox, 30);
	for (let i = 0; i < 2; i++) {
		// Every poll says so (n8n records a failed execution), and nothing is emitted or committed.
		const error = await trigger.poll().then(
			() => undefined,
			(thrown: Error) => thrown,
		);
		expect(error?.message).toMatch(
			new RegExp(
				`seems to ignore \`page\`.*Scans ${horizon + 1} to ${fresh[4]} could not be listed; nothing was emitted`,
			),
		);
		expect((error as NodeOperationError).description).toMatch(
			new RegExp(`stays at scan ${horizon}.*Poll more often.*rename this trigger node`),
		);
		expect(trigger.nodeStaticData.horizon).toBe(horizon);
	}

	sandbox.control.setListing({ ignorePage: false });
	expect(emittedIds(await trigger.poll()).sort((a, b) => a - b)).toEqual(fresh);
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
