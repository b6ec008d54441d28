/** examples/scan-events-polling.json: its poll trigger runs with exactly its saved parameters. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { INode } from 'n8n-workflow';

import { type Sandbox, startSandbox } from '../../sandbox/server';
import { POLL_TRIGGER_NODE_TYPE } from '../support/package';
import { emittedIds, makePoll, seed } from './helpers';

const workflow = JSON.parse(
	readFileSync(path.resolve(__dirname, '../../examples/scan-events-polling.json'), 'utf8'),
) as { nodes: INode[]; connections: Record<string, unknown> };
const node = workflow.nodes.find((n) => n.type === POLL_TRIGGER_NODE_TYPE)!;

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(async () => await sandbox.close());

test('the example polls every 5 minutes and feeds the IF node', () => {
	expect(node.parameters.pollTimes).toEqual({
		item: [{ mode: 'everyX', value: 5, unit: 'minutes' }],
	});
	expect(workflow.connections[node.name]).toBeDefined();
});

test('activation, then finished and failed scans come out once, with the event the IF node reads', async () => {
	const trigger = await makePoll(sandbox, node.parameters);
	expect(await trigger.activate()).toBeNull();
	const [done] = seed(sandbox, 1, 'completed', 1);
	const [failed] = seed(sandbox, 1, 'failed', 1);
	const items = await trigger.poll();
	expect(emittedIds(items)).toEqual([done, failed]);
	expect(items!.map((item) => item.json.event)).toEqual(['scan.completed', 'scan.failed']);
	expect(await trigger.poll()).toBeNull();
});
