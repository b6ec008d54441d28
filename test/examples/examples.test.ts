/**
 * The example workflows in examples/ are importable as they are: every parameter of this
 * package's nodes exists (and is shown) in the node's description, option values are known,
 * and the nodes run with exactly those parameters against the sandbox.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { IDataObject, INode, INodeParameters, INodeProperties, INodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { DEFAULT_API_KEY, startSandbox, type Sandbox } from '../../sandbox/server';
import { binaryItem } from '../support/fixtures';
import { loadPackage } from '../support/package';
import { startReceiver } from '../support/receiver';
import { runNode } from '../support/run-node';
import { callTool } from '../support/tool-call';
import { TriggerHarness } from '../support/trigger-harness';

const dir = path.resolve(__dirname, '../../examples');
const examples = readdirSync(dir)
	.filter((file) => file.endsWith('.json'))
	.map((file) => ({ file, workflow: JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { nodes: INode[] } }));
/** The sample invoices as `npm start` writes them (tools/n8n/sample-invoices.mjs), in file-name order. */
function sampleInvoices(): Array<{ file: string; pdf: Buffer }> {
	const tmp = mkdtempSync(path.join(os.tmpdir(), 'sample-invoices-'));
	try {
		const script = `import { writeSampleInvoices } from ${JSON.stringify(path.resolve(__dirname, '../../tools/n8n/sample-invoices.mjs'))};
			process.stdout.write(JSON.stringify(writeSampleInvoices(${JSON.stringify(tmp)})));`;
		const files = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
		return files.map((file) => ({ file, pdf: readFileSync(path.join(tmp, file)) }));
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}
const ours = (node: INode) => node.type.startsWith('n8n-nodes-document-scanning.');
const exampleNode = (file: string) => examples.find((e) => e.file === file)!.workflow.nodes.find(ours)!;

/** Every key of `values` must be a property shown for these parameters; recurses into collections. */
function unknownParameters(
	properties: INodeProperties[],
	values: INodeParameters,
	all: INodeParameters,
	node: INode,
	description: INodeType['description'],
	prefix = '',
): string[] {
	const problems: string[] = [];
	for (const [name, value] of Object.entries(values)) {
		const shown = properties.filter(
			(p) => p.name === name && NodeHelpers.displayParameter(all, p, node, description),
		);
		if (shown.length === 0) {
			problems.push(`${prefix}${name}`);
			continue;
		}
		problems.push(...invalidValue(shown[0], value, `${prefix}${name}`));
	}
	return problems;
}

/** Values outside an options list, and unknown keys (or values) inside a collection. */
function invalidValue(property: INodeProperties, value: unknown, label: string): string[] {
	if (typeof value === 'string' && value.startsWith('=') && !property.noDataExpression) return []; // an expression
	const known = (v: unknown) => property.options?.some((o) => 'value' in o && o.value === v);
	if (property.type === 'options') return known(value) ? [] : [`${label}=${String(value)}`];
	if (property.type === 'multiOptions') {
		return (value as unknown[]).filter((v) => !known(v)).map((v) => `${label}=${String(v)}`);
	}
	if (property.type === 'collection' && value && typeof value === 'object') {
		const options = (property.options ?? []) as INodeProperties[];
		return Object.entries(value).flatMap(([key, inner]) => {
			const option = options.find((o) => o.name === key);
			return option ? invalidValue(option, inner, `${label}.${key}`) : [`${label}.${key}`];
		});
	}
	return [];
}

test('there are example workflows, each using this package', () => {
	expect(examples.length).toBeGreaterThanOrEqual(3);
	for (const { workflow } of examples) expect(workflow.nodes.some(ours)).toBe(true);
});

test.each(examples.map((e) => [e.file, e.workflow] as const))(
	'%s uses only parameters the nodes know',
	async (_file, workflow) => {
		const { nodeTypes } = await loadPackage();
		for (const node of workflow.nodes.filter(ours)) {
			const type = nodeTypes.getByNameAndVersion(node.type, node.typeVersion) as INodeType;
			expect(node.credentials?.documentScanningApi).toBeDefined();
			expect(
				unknownParameters(type.description.properties, node.parameters, node.parameters, node, type.description),
			).toEqual([]);
		}
	},
);

test('scans-to-erp-with-review: threshold and ERP URL set in one place, repeats dropped on deliveryKey, the form address in the node a user swaps', () => {
	const { nodes } = examples.find((e) => e.file === 'scans-to-erp-with-review.json')!.workflow;
	const byName = (name: string) => nodes.find((n) => n.name === name)!;
	const text = (node: INode) => JSON.stringify(node.parameters);
	expect(nodes.flatMap((n) => Object.keys(n.credentials ?? {}))).toEqual(['documentScanningApi']);
	expect(byName('Drop repeated deliveries')).toMatchObject({
		type: 'n8n-nodes-base.removeDuplicates',
		typeVersion: 2,
		parameters: { operation: 'removeItemsSeenInPreviousExecutions', dedupeValue: expect.stringMatching(/^=\{\{ \$json\.deliveryKey /) },
	});
	const settings = byName('Settings').parameters as { assignments: { assignments: Array<{ name: string }> } };
	expect(settings.assignments.assignments.map((a) => a.name)).toEqual(['threshold', 'erpUrl']);
	const naming = (pattern: RegExp) => nodes.filter((n) => pattern.test(text(n))).map((n) => n.name);
	expect(naming(/localhost:8787/)).toEqual(['Settings']);
	expect(naming(/\$json\.threshold/)).toEqual(['Book without review?', 'What the reviewer sees']);
	expect(text(byName('Book in the ERP (replace me)'))).toContain("$('Settings').first().json.erpUrl");
	expect(text(byName('Tell the reviewer where the form is (replace me)'))).toContain('$execution.resumeFormUrl');
	expect(byName('Wait for the review')).toMatchObject({ typeVersion: 1.1, parameters: { resume: 'form' } });
});

test('scans-to-erp-with-review: every scan.failed body names its scan, an unreadable confidence goes to review, any validation_errors read, reviewed_data wins', () => {
	const { nodes } = examples.find((e) => e.file === 'scans-to-erp-with-review.json')!.workflow;
	// The expressions are plain JavaScript inside {{ }}: evaluated here on an item as n8n would.
	const evaluate = (expression: string, json: IDataObject) =>
		new Function('$json', `return (${expression.replace(/^=\{\{([\s\S]*)\}\}$/, '$1')});`)(json) as unknown;
	type Assignment = { name: string; value: string };
	const scanFields = (json: IDataObject) =>
		Object.fromEntries(
			(nodes.find((n) => n.name === 'The scan')!.parameters.assignments as { assignments: Assignment[] }).assignments.map((a) => [
				a.name,
				evaluate(a.value, json),
			]),
		);
	const [condition] = (nodes.find((n) => n.name === 'Book without review?')!.parameters.conditions as { conditions: Array<{ leftValue: string }> })
		.conditions;
	const sure = (data: IDataObject) => evaluate(condition.leftValue, { threshold: 80, data });
	const head = { event: 'scan.failed', timestamp: '2026-01-01T00:00:00Z' };
	const failed = { filename: 'a.pdf', status: 'failed', error_message: 'unreadable' };
	expect(scanFields({ ...head, scan_id: 7, ...failed })).toMatchObject({ scan_id: 7, filename: 'a.pdf', deliveryKey: 'scan.failed:7:2026-01-01T00:00:00Z' });
	expect(scanFields({ ...head, data: { id: 8, ...failed } })).toMatchObject({ scan_id: 8, filename: 'a.pdf' });
	const completed = { status: 'completed', confidence: 95, is_partial: false, validation_errors: [] };
	expect(sure(completed)).toBe(true);
	expect([sure({ ...completed, confidence: 'high' }), sure({ ...completed, confidence: null }), sure({ ...completed, confidence: 79 })]).toEqual([false, false, false]);
	expect(sure({ ...completed, validation_errors: 'total missing' })).toBe(false);
	const errors = (validation_errors: unknown) => scanFields({ data: { scan_id: 1, validation_errors } }).errors;
	expect(errors(['total missing', { message: 'm' }, { rule: 'min', field: 'total' }])).toEqual(['total missing', 'm', '{"rule":"min","field":"total"}']);
	expect(errors({ total: 'missing' })).toEqual(['{"total":"missing"}']);
	const extracted_data = { total_amount: 10, supplier_name: 'A' };
	expect(scanFields({ data: { scan_id: 1, extracted_data, reviewed_data: { total_amount: 12 } } }).invoice).toEqual({ total_amount: 12, supplier_name: 'A' });
	expect(scanFields({ data: { scan_id: 1, extracted_data }, scan: { reviewed_data: { supplier_name: 'B' } } }).invoice).toEqual({ total_amount: 10, supplier_name: 'B' });
	expect(nodes.find((n) => n.name === 'Book in the ERP (replace me)')).toMatchObject({ retryOnFail: true, maxTries: 3 });
});

describe('the examples run against the sandbox', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ processingDelayMs: 20, allowInsecureWebhookUrls: true });
	});
	afterAll(async () => await sandbox.close());
	const env = () => ({ baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY });

	test('invoice-line-items-to-erp: one item per line item, paired to its PDF', async () => {
		const node = exampleNode('invoice-line-items-to-erp.json');
		const pdf = (n: number) => Buffer.from(`%PDF-1.7\n% example invoice ${n}\n%%EOF\n`);
		const { output, error } = await runNode({
			parameters: node.parameters,
			typeVersion: node.typeVersion,
			items: [binaryItem(pdf(1), 'invoice-1.pdf', 'application/pdf'), binaryItem(pdf(2), 'invoice-2.pdf', 'application/pdf')],
			env: env(),
		});
		expect(error).toBeUndefined();
		expect(output.length).toBeGreaterThanOrEqual(4);
		expect(output.every((item) => item.json.table === 'line_items' && typeof item.json.row_number === 'number')).toBe(true);
		expect(new Set(output.map((item) => (item.pairedItem as { item: number }).item))).toEqual(new Set([0, 1]));
	});

	test('invoice-line-items-to-erp on the sample invoices of npm start: Globex gives its own fields and rows', async () => {
		const node = exampleNode('invoice-line-items-to-erp.json');
		const files = sampleInvoices();
		const { output, error } = await runNode({
			parameters: node.parameters,
			typeVersion: node.typeVersion,
			items: files.map(({ file, pdf }) => binaryItem(pdf, file, 'application/pdf')),
			env: env(),
		});
		expect(error).toBeUndefined();
		const globexIndex = files.findIndex((f) => f.file === 'invoice-1002-globex.pdf');
		const globex = output.filter((item) => (item.pairedItem as { item: number }).item === globexIndex);
		expect(globex.map((item) => item.json)).toEqual([
			{
				position: 1,
				article_number: null,
				description: 'USB-C cable',
				quantity: 3,
				reviewed: false,
				reviewedFields: [],
				unit: 'pcs',
				unit_price: 9.95,
				scan_id: expect.any(Number),
				original_filename: 'invoice-1002-globex.pdf',
				table: 'line_items',
				row_number: 1,
				document: {
					invoice_number: '1002',
					invoice_date: '2024-03-11',
					supplier_name: 'Globex Hardware',
					total_amount: 29.85,
					currency: 'EUR',
				},
			},
		]);
		// Every row belongs to the invoice it was read from: 2 + 1 + 2 line items.
		expect(output.map((item) => [(item.pairedItem as { item: number }).item, (item.json.document as { invoice_number: string }).invoice_number])).toEqual(
			files.flatMap(({ file }, i) => {
				const number = /invoice-(\d+)/.exec(file)![1];
				return Array.from({ length: number === '1002' ? 1 : 2 }, () => [i, number]);
			}),
		);
	});

	test('hourly-batch-from-folder: over the hourly limit, the documents that fit get scans, the others "not uploaded" items without an id', async () => {
		const node = exampleNode('hourly-batch-from-folder.json');
		expect(node.onError).toBe('continueRegularOutput');
		sandbox.control.reset();
		sandbox.control.seedUploads({ count: 198 });
		const pdf = (n: number) => binaryItem(Buffer.from(`%PDF-1.7\n% hourly batch ${n}\n%%EOF\n`), `inbox-${n}.pdf`, 'application/pdf');
		const { output, error } = await runNode({ parameters: node.parameters, typeVersion: node.typeVersion, items: [0, 1, 2, 3].map(pdf), env: env(), continueOnFail: true });
		expect(error).toBeUndefined();
		// The IF node "Not uploaded?" tests `$json.id === undefined`.
		expect(output.map((item) => (item.json.id === undefined ? 'deferred' : 'scan'))).toEqual(['scan', 'scan', 'deferred', 'deferred']);
		expect(output.slice(2).every((item) => item.json.notUploaded === true && typeof item.json.retryAfter === 'string')).toBe(true);
		sandbox.control.reset();
	});

	test('first-scan (the README\'s first workflow): each sample invoice sent through its form gives the fields the next node uses', async () => {
		const { nodes } = examples.find((e) => e.file === 'first-scan.json')!.workflow;
		// No node of the workflow reads the disk: it runs on n8n 2.x's default file access too.
		expect(nodes.map((n) => n.type).sort()).toEqual([
			'n8n-nodes-base.formTrigger',
			'n8n-nodes-base.set',
			'n8n-nodes-document-scanning.documentScanning',
		]);
		// The Form Trigger puts a file into the binary field named after its label, \W as "_"
		// (n8n-nodes-base, prepareFormReturnItem, n8n 1.123 and 2.40): the upload reads that field.
		const form = nodes.find((n) => n.type === 'n8n-nodes-base.formTrigger')!;
		const [field] = (form.parameters.formFields as { values: IDataObject[] }).values;
		expect(field).toMatchObject({ fieldType: 'file', multipleFiles: false, requiredField: true });
		const binaryField = String(field.fieldLabel).replace(/\W/g, '_');
		const node = exampleNode('first-scan.json');
		expect(node.parameters.binaryPropertyName).toBe(binaryField);
		const files = sampleInvoices();
		const { output, error } = await runNode({
			parameters: node.parameters,
			typeVersion: node.typeVersion,
			items: files.map(({ file, pdf }) => binaryItem(pdf, file, 'application/pdf', {}, binaryField)),
			env: env(),
		});
		expect(error).toBeUndefined();
		expect(output.map((item) => [item.json.supplier_name, item.json.invoice_number, item.json.total_amount, item.json.currency])).toEqual([
			['ACME Office Supplies', '1001', 33.5, 'EUR'],
			['Globex Hardware', '1002', 29.85, 'EUR'],
			['Initech Services', '1003', expect.any(Number), 'EUR'],
		]);
		expect(output.every((item) => item.json.status === 'completed')).toBe(true);
	});

	test('daily-credit-check: the balance item the IF node reads', async () => {
		const { output } = await runNode({ parameters: exampleNode('daily-credit-check.json').parameters, env: env() });
		expect(output).toHaveLength(1);
		expect(typeof output[0].json.remaining_scans).toBe('number');
	});

	test('ask-about-your-scans: each tool answers the arguments a model sends, compact, reading only', async () => {
		const [scanId] = sandbox.control.seedScans({ count: 3, template_id: 3 });
		sandbox.control.clearRequests();
		const tools = examples.find((e) => e.file === 'ask-about-your-scans.json')!.workflow.nodes.filter(ours);
		expect(tools.map((node) => [node.type, node.typeVersion])).toEqual(
			tools.map(() => ['n8n-nodes-document-scanning.documentScanningTool', 1.1]),
		);
		const args: Record<string, IDataObject> = {
			'Account balance': {},
			'List scans': { limit: 2, status: 'completed', templateId: '3' },
			'Read scan': { scanId },
			'List templates': {},
		};
		for (const node of tools) {
			const result = await callTool({
				path: 'mcp',
				parameters: node.parameters,
				args: args[node.name],
				env: env(),
				typeVersion: node.typeVersion,
				nodeName: node.name,
			});
			expect(result.isError).toBe(false);
			const answer = result.json as IDataObject[];
			expect(answer.length).toBeGreaterThan(0);
			expect(Object.keys(result.offered!.schema.properties as IDataObject).sort()).toEqual(Object.keys(args[node.name]).sort());
			if (node.name === 'List scans') expect(answer.map((scan) => [scan.status, scan.template_id])).toEqual([['completed', 3], ['completed', 3]]);
			if (node.name === 'Read scan') expect(answer[0]).toEqual(expect.objectContaining({ scan_id: scanId, original_filename: expect.any(String) }));
		}
		expect(sandbox.control.requests().every((r) => r.method === 'GET')).toBe(true);
	});

	test('scan-events: activation registers the webhook and a signed delivery gives the full scan', async () => {
		const node = exampleNode('scan-events.json');
		let harness: TriggerHarness | undefined;
		const receiver = await startReceiver(() => harness!);
		try {
			harness = await TriggerHarness.create({ parameters: node.parameters, env: env(), webhookBaseUrl: receiver.baseUrl });
			await harness.activate();
			const stored = harness.staticData[`node:${harness.node.name}`] as { webhookId: number };
			const [scanId] = sandbox.control.seedScans({ count: 1, template_id: 1 });
			const delivery = await sandbox.control.deliver(stored.webhookId, 'scan.completed', scanId);
			expect(delivery.success).toBe(true);
			const [result] = await receiver.waitFor(1);
			const item = result.workflowData?.[0][0].json;
			expect(item?.event).toBe('scan.completed');
			expect((item?.scan as { id: number }).id).toBe(scanId);
			expect(await harness.hook('delete')).toBe(true);
		} finally {
			await receiver.close();
		}
	});
});
