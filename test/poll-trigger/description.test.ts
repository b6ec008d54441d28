/** The poll trigger as n8n loads it: names fixed by CONTRACT.md, polling, options shared with the webhook trigger. */
import fs from 'node:fs';
import path from 'node:path';

import type { INodeProperties, INodeType } from 'n8n-workflow';

import {
	loadPackage,
	PACKAGE_DIR,
	POLL_TRIGGER_NODE_TYPE,
	TRIGGER_NODE_TYPE,
} from '../support/package';

let poll: INodeType;
let webhook: INodeType;
beforeAll(async () => {
	const { nodeTypes } = await loadPackage();
	poll = nodeTypes.getByNameAndVersion(POLL_TRIGGER_NODE_TYPE, 1) as INodeType;
	webhook = nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE, 1) as INodeType;
});

const property = (type: INodeType, name: string) =>
	type.description.properties.find((p) => p.name === name)!;

test('name, display name, polling, credential', () => {
	expect(poll.description.name).toBe('documentScanningPollTrigger');
	expect(poll.description.displayName).toBe('Document Scanning Poll Trigger');
	expect(poll.description.polling).toBe(true);
	expect(poll.description.group).toEqual(['trigger']);
	expect(poll.description.inputs).toEqual([]);
	expect(poll.description.credentials).toEqual([{ name: 'documentScanningApi', required: true }]);
	expect(poll.poll).toEqual(expect.any(Function));
	expect(poll.methods?.loadOptions?.getTemplates).toEqual(expect.any(Function));
});

test('n8n adds its standard "Poll Times" parameter when it loads the node', () => {
	const pollTimes = property(poll, 'pollTimes');
	expect(pollTimes).toMatchObject({ displayName: 'Poll Times', type: 'fixedCollection' });
});

test("events and options have the webhook trigger's names, types and defaults", () => {
	expect(property(poll, 'events')).toEqual(property(webhook, 'events'));
	const options = (property(poll, 'options').options as INodeProperties[])
		.map((o) => o.name)
		.sort();
	expect(options).toEqual(['includeValidationFailed', 'splitIntoRows', 'templateIds']);
	const webhookOptions = property(webhook, 'options').options as INodeProperties[];
	for (const option of property(poll, 'options').options as INodeProperties[]) {
		const twin = webhookOptions.find((o) => o.name === option.name)!;
		expect({ type: option.type, default: option.default }).toEqual({
			type: twin.type,
			default: twin.default,
		});
	}
});

test("the webhook trigger's notice points users without a public address to the poll trigger", () => {
	expect(property(webhook, 'webhookNotice').displayName).toContain(
		'Document Scanning Poll Trigger',
	);
});

test('the codex file is built next to the node and names the node type', () => {
	const codexPath = path.join(
		PACKAGE_DIR,
		'dist/nodes/DocumentScanningPollTrigger/DocumentScanningPollTrigger.node.json',
	);
	const codex = JSON.parse(fs.readFileSync(codexPath, 'utf8'));
	expect(codex).toMatchObject({
		node: POLL_TRIGGER_NODE_TYPE,
		nodeVersion: '1.0',
		codexVersion: '1.0',
	});
	expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
});
