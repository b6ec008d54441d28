/**
 * #34 §2: each tool's description, its parameters and its compact answer agree. The test reads
 * the description the model gets (the tool n8n-core builds from the tool form) and checks each
 * promise against real answers from the sandbox: every field it names (snake_case, and the plain
 * words listed per operation) is in an answer; the statuses it lists are the API's, and each
 * works as the status filter a builder offers with `$fromAI`; the template filter takes the
 * template list's IDs; the file name it offers is the one the user gave, without the `.ds-<hex>`
 * fingerprint the service stores. A description promising a field no answer has is caught (the
 * last test breaks one in memory).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { SCAN_STATUS_OPTIONS } from '../../nodes/DocumentScanning/actions/scan/getAll.operation';
import { ANSWER_NOTE } from '../../nodes/DocumentScanning/actions/tool.descriptions';
import { api } from '../support/sandbox-api';
import { callTool, type ToolCallResult } from '../support/tool-call';
import { useSandbox } from './helpers';

const sb = useSandbox();
const fromAi = (key: string, description: string, type = 'string') =>
	`={{ $fromAI('${key}', '${description}', '${type}') }}`;
const SCAN_ID = fromAi('scanId', 'The numeric ID of the scan', 'number');
const STATUS = fromAi(
	'status',
	'Only scans in this status: uploaded, processing, completed, validation_failed or failed; an empty string for every status',
);
const TEMPLATE = fromAi(
	'templateId',
	'Only scans made with this template (its ID from the template list); an empty string for every template',
);
const LIST = {
	resource: 'scan',
	operation: 'getAll',
	limit: fromAi('limit', 'How many scans to list, newest first (1 to 50)', 'number'),
	filters: { status: STATUS, templateId: { __rl: true, mode: 'id', value: TEMPLATE } },
};
const API_STATUSES = SCAN_STATUS_OPTIONS.map((option) => option.value).sort();

/** Every key of every record in `value`, however deep. */
function keysOf(value: unknown, keys = new Set<string>()): Set<string> {
	if (Array.isArray(value)) value.forEach((entry) => keysOf(entry, keys));
	else if (typeof value === 'object' && value !== null)
		for (const [key, entry] of Object.entries(value)) keysOf(entry, keys.add(key));
	return keys;
}

/** The statuses a description lists after "status (". */
const listedStatuses = (description: string) =>
	(/status \(([^)]*)\)/.exec(description)?.[1] ?? '').split(/, | or /).sort();

/**
 * The fields a description promises that no answer carries: its snake_case names (but the
 * statuses it lists) and the plain `words`, each of which it must name.
 */
export function unkeptPromises(
	description: string,
	answers: unknown[],
	words: string[] = [],
): string[] {
	const keys = keysOf(answers);
	description = description.replace(ANSWER_NOTE, ''); // its promises: tool-bounds.test.ts
	const statuses = listedStatuses(description);
	const snake = (description.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? []).filter(
		(t) => !statuses.includes(t),
	);
	const unnamed = words.filter((word) => !new RegExp(`\\b${word}\\b`).test(description));
	return [...new Set([...snake, ...words])]
		.filter((field) => !keys.has(field))
		.concat(unnamed.map((w) => `${w} (not named)`));
}

async function call(parameters: INodeParameters, args: IDataObject = {}): Promise<ToolCallResult> {
	return await callTool({ path: 'mcp', parameters, args, env: sb.env() });
}

/** Scans of every status, with a fingerprinted name, 40 line items and a reviewed field. */
function seedScans(): Record<string, number> {
	const control = sb.get().control;
	const ids: Record<string, number> = {};
	for (const status of API_STATUSES)
		[ids[status]] = control.seedScans({
			count: 1,
			status: status as never,
			template_id: 3,
			filename: `Delivery {id}.ds-0123456789ab.pdf`,
			extracted_data:
				status === 'completed' || status === 'validation_failed'
					? {
							invoice_number: 'INV-1',
							supplier_name: 'Atlas',
							total_amount: 10,
							line_items: Array.from({ length: 12 }, (_, i) => ({ position: i + 1 })),
							...(status === 'completed' ? { status: 'paid' } : {}), // under extracted_fields
						}
					: null,
			reviewed_data: status === 'completed' ? { total_amount: 12 } : null,
		});
	return ids;
}

describe('what each description promises comes back', () => {
	test('Scan → Get and Get Many: every field named, the statuses listed, newest first, the name the user gave', async () => {
		const ids = seedScans();
		const reads = await Promise.all(
			Object.values(ids).map(
				async (scanId) =>
					await call({ resource: 'scan', operation: 'get', scanId: SCAN_ID }, { scanId }),
			),
		);
		const answers = reads.map((read) => read.json);
		const description = reads[0].offered!.description;
		expect(unkeptPromises(description, answers)).toEqual([]);
		expect(listedStatuses(description)).toEqual(API_STATUSES);
		expect(description).toMatch(/\.ds-1a2b3c4d5e6f/);
		const completed = (answers[API_STATUSES.indexOf('completed')] as IDataObject[])[0];
		expect(completed.original_filename).toBe(`Delivery ${ids.completed}.pdf`);
		expect(JSON.stringify(answers)).not.toMatch(/\.ds-0123456789ab/);

		const listed = await call(LIST, { limit: 50, status: '', templateId: '' });
		const listDescription = listed.offered!.description;
		expect(unkeptPromises(listDescription, [listed.json])).toEqual([]);
		expect(listedStatuses(listDescription)).toEqual(API_STATUSES);
		expect(listDescription).toMatch(/\.ds-<hex>/);
		const times = (listed.json as IDataObject[]).map((scan) => Date.parse(String(scan.created_at)));
		expect(times).toHaveLength(API_STATUSES.length);
		expect([...times].sort((a, b) => b - a)).toEqual(times);
	});

	test('each status listed works as the status filter; an empty one lists every scan', async () => {
		const ids = seedScans();
		for (const status of API_STATUSES) {
			const result = await call(LIST, { limit: 50, status, templateId: '' });
			expect(result.isError).toBe(false);
			expect((result.json as IDataObject[]).map((scan) => [scan.scan_id, scan.status])).toEqual([
				[ids[status], status],
			]);
		}
		const refused = await call(LIST, { limit: 50, status: 'done', templateId: '' });
		expect(refused.isError).toBe(true);
		expect(refused.text).toMatch(/status/i);
	});

	test('the template filter takes an ID from the template list', async () => {
		seedScans();
		sb.get().control.seedScans({ count: 2, template_id: 1 });
		const templates = (await call({ resource: 'template', operation: 'getAll', returnAll: true }))
			.json as IDataObject[];
		for (const { id } of templates) {
			const result = await call(LIST, { limit: 50, status: '', templateId: String(id) });
			const scans = result.json as IDataObject[];
			expect(scans.every((scan) => scan.template_id === id)).toBe(true);
			expect(scans.length).toBe(id === 3 ? API_STATUSES.length : id === 1 ? 2 : 0);
		}
	});

	test('Template → Get Many and Account → Get', async () => {
		const templates = await call({ resource: 'template', operation: 'getAll', returnAll: true });
		expect(
			unkeptPromises(templates.offered!.description, [templates.json], ['id', 'name']),
		).toEqual([]);
		const modes = (templates.json as IDataObject[]).map((t) => t.extraction_mode);
		expect(templates.offered!.description).toContain(
			`(${['scalar', 'tabular', 'mixed'].join(', ')} or vision)`,
		);
		expect(new Set(modes)).toEqual(new Set(['scalar', 'tabular', 'mixed', 'vision']));
		const account = await call({ resource: 'account', operation: 'get' });
		expect(unkeptPromises(account.offered!.description, [account.json])).toEqual([]);
	});

	test('the webhook tools: Create, Delete, Get Many, Get Logs', async () => {
		const receiver = http.createServer((req, res) => req.resume().on('end', () => res.end('{}')));
		await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
		try {
			sb.get().control.setOptions({ allowInsecureWebhookUrls: true });
			const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
			const created = await call(
				{
					resource: 'webhook',
					operation: 'create',
					allowChanges: true,
					name: fromAi('name', 'A name'),
					url: fromAi('url', 'The URL'),
				},
				{ name: 'Events', url },
			);
			expect(
				unkeptPromises(
					created.offered!.description,
					[created.json],
					['id', 'name', 'url', 'events', 'secret'],
				),
			).toEqual([]);
			const id = (created.json as IDataObject[])[0].id as number;
			await sb.get().control.deliver(id, 'scan.completed');
			const hooks = await call({ resource: 'webhook', operation: 'getAll' });
			expect(
				unkeptPromises(hooks.offered!.description, [hooks.json], ['id', 'name', 'url', 'events']),
			).toEqual([]);
			const logs = await call({ resource: 'webhook', operation: 'getLogs', webhookId: String(id) });
			expect(
				unkeptPromises(
					logs.offered!.description,
					[logs.json],
					['total', 'shown', 'logs', 'event', 'success', 'error'],
				),
			).toEqual([]);
			const deleted = await call(
				{
					resource: 'webhook',
					operation: 'delete',
					allowChanges: true,
					webhookId: fromAi('webhookId', 'The ID', 'number'),
				},
				{ webhookId: id },
			);
			expect(
				unkeptPromises(deleted.offered!.description, [deleted.json], ['deleted', 'id']),
			).toEqual([]);
			expect((await api(sb.get(), 'GET', '/webhooks')).body.data).toEqual([]);
		} finally {
			receiver.closeAllConnections();
			await new Promise<void>((resolve) => receiver.close(() => resolve()));
		}
	});

	test('Scan → Upload says what happens: every call is refused', async () => {
		const result = await call({
			resource: 'scan',
			operation: 'upload',
			templateId: { __rl: true, mode: 'id', value: '1' },
		});
		expect(result.offered!.description).toMatch(
			/every call is refused, uploading nothing and using no scan credit/,
		);
		expect(result.isError).toBe(true);
	});

	test('the check fails for a description that promises a field the answer lacks', async () => {
		const reads = await Promise.all(
			Object.values(seedScans()).map(
				async (scanId) =>
					await call({ resource: 'scan', operation: 'get', scanId: SCAN_ID }, { scanId }),
			),
		);
		const answers = reads.map((read) => read.json);
		const description = reads[0].offered!.description;
		expect(unkeptPromises(description, answers)).toEqual([]);
		expect(unkeptPromises(`${description} Also returns due_date.`, answers)).toEqual(['due_date']);
		expect(unkeptPromises(description, answers, ['owner'])).toEqual(['owner', 'owner (not named)']);
		expect(unkeptPromises(description, answers.slice(0, 1))).not.toEqual([]);
	});
});
