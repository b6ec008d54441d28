/**
 * #34 §1: answers sized for a model. As a tool (every node version: a tool's answer goes to a
 * model, never to a later node), Scan → Get and Get Many answer the compact scan
 * (execution/toolAnswer.ts) unless "Output" says otherwise, Get Many lists at most 50 scans and Get
 * Logs gives the newest 20 attempts.
 * The figure of the issue (characters of the tool's answer, what the model reads) is printed by
 * `npx jest test/node/tool-answers.test.ts -t figure` and bounded here.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { compactScan } from '../../nodes/DocumentScanning/execution/toolAnswer';
import { runs } from '../support/property-runs';
import { api } from '../support/sandbox-api';
import { callTool, type ToolCallOptions } from '../support/tool-call';
import { jsonOf, run, useSandbox } from './helpers';

const sb = useSandbox();
const SCAN_ID = "={{ $fromAI('scanId', 'The numeric ID of the scan', 'number') }}";
const LIMIT = "={{ $fromAI('limit', 'How many scans to list, newest first (1 to 50)', 'number') }}";

/** A long invoice: the fields of template 3 and `count` line items. */
function invoice(count: number): IDataObject {
	return {
		invoice_number: 'INV-2024-0042',
		invoice_date: '2024-05-02',
		supplier_name: 'Atlas Industrial Parts',
		total_amount: 12_345.67,
		currency: 'EUR',
		line_items: Array.from({ length: count }, (_, i) => ({
			position: i + 1,
			article_number: `ART-${String(i + 1).padStart(5, '0')}`,
			description: `Delivered article number ${i + 1}`,
			quantity: (i % 7) + 1,
			unit: 'pcs',
			unit_price: 12.5,
		})),
	};
}

const seed = (count: number, extra: IDataObject = {}) =>
	sb.get().control.seedScans({
		count,
		template_id: 3,
		extracted_data: invoice(40),
		filename: 'Invoice {id}.ds-1a2b3c4d5e6f.pdf',
		...extra,
	});

const call = async (options: Omit<ToolCallOptions, 'env' | 'path'>) =>
	await callTool({ path: 'mcp', env: sb.env(), ...options });

describe('a compact scan', () => {
	test('Scan → Get: what the scan is, its fields, the first 10 line items and how many were left out', async () => {
		const [id] = seed(1);
		const result = await call({
			parameters: { resource: 'scan', operation: 'get', scanId: SCAN_ID },
			args: { scanId: id },
		});
		const [scan] = result.json as IDataObject[];
		expect(scan).toEqual({
			scan_id: id,
			status: 'completed',
			original_filename: `Invoice ${id}.pdf`,
			template_id: 3,
			created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
			confidence: expect.any(Number),
			...invoice(10),
			not_shown: { line_items: 30 },
		});
	});

	test('Scan → Get Many: every scan without its tables, their sizes in not_shown', async () => {
		seed(3);
		const result = await call({
			parameters: { resource: 'scan', operation: 'getAll', limit: LIMIT },
			args: { limit: 3 },
		});
		const scans = result.json as IDataObject[];
		expect(scans).toHaveLength(3);
		for (const scan of scans) {
			expect(scan).not.toHaveProperty('line_items');
			expect(scan).toEqual(
				expect.objectContaining({
					supplier_name: 'Atlas Industrial Parts',
					not_shown: { line_items: 40 },
				}),
			);
		}
	});

	test('a failed scan says why; a scan that did not validate, which rules', async () => {
		const [failed] = sb.get().control.seedScans({ count: 1, status: 'failed' });
		const [invalid] = sb.get().control.seedScans({ count: 1, status: 'validation_failed' });
		const read = async (id: number) =>
			(
				(
					await call({
						parameters: { resource: 'scan', operation: 'get', scanId: SCAN_ID },
						args: { scanId: id },
					})
				).json as IDataObject[]
			)[0];
		expect(await read(failed)).toEqual(
			expect.objectContaining({ status: 'failed', error_message: expect.any(String) }),
		);
		expect(await read(invalid)).toEqual(
			expect.objectContaining({
				status: 'validation_failed',
				validation_errors: expect.any(Array),
			}),
		);
	});

	test.each([1, 1.1])(
		'"Output" still decides when the builder set it (node version %s)',
		async (typeVersion) => {
			const [id] = seed(1);
			const get = { resource: 'scan', operation: 'get', scanId: SCAN_ID };
			const fields = await call({
				parameters: { ...get, options: { output: 'fields' } },
				args: { scanId: id },
				typeVersion,
			});
			expect((fields.json as IDataObject[])[0].line_items).toHaveLength(40);
			const raw = await call({
				parameters: { ...get, options: { output: 'raw' } },
				args: { scanId: id },
				typeVersion,
			});
			expect((raw.json as IDataObject[])[0]).toEqual(
				expect.objectContaining({ id, extracted_data: expect.any(Object) }),
			);
			const compact = await call({ parameters: get, args: { scanId: id }, typeVersion });
			expect((compact.json as IDataObject[])[0]).toEqual(
				expect.objectContaining({ scan_id: id, not_shown: { line_items: 30 } }),
			);
		},
	);
});

describe('caps on what a model can request', () => {
	const list = (extra: IDataObject) => ({ resource: 'scan', operation: 'getAll', ...extra });

	test.each([
		['Limit 51', { limit: LIMIT }, { limit: 51 }, /got 51/],
		['Return All', { returnAll: true }, {}, /got "Return All"/],
	])(
		'%s is refused before any request, saying what to ask instead',
		async (_, parameters, args, got) => {
			const result = await call({ parameters: list(parameters), args });
			expect(result.isError).toBe(true);
			expect(result.text).toMatch(/the field "Limit" must be at most 50 for an AI model/);
			expect(result.text).toMatch(got);
			expect(result.text).toMatch(/narrow the list by status or template/);
			expect(sb.get().control.requests()).toHaveLength(0);
		},
	);

	test('50 is allowed, the newest first', async () => {
		seed(60);
		const fifty = await call({ parameters: list({ limit: LIMIT }), args: { limit: 50 } });
		expect((fifty.json as IDataObject[]).map((scan) => scan.scan_id)).toEqual(
			Array.from({ length: 50 }, (_, i) => 60 - i),
		);
	});

	test('Get Logs: the newest 20 attempts and how many there are; the plain node every attempt', async () => {
		const receiver = http.createServer((req, res) => req.resume().on('end', () => res.end('{}')));
		await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
		try {
			sb.get().control.setOptions({ allowInsecureWebhookUrls: true });
			const { port } = receiver.address() as AddressInfo;
			const hook = (
				await api(sb.get(), 'POST', '/webhooks', {
					json: { name: 'ERP', url: `http://127.0.0.1:${port}/hook`, events: ['scan.completed'] },
				})
			).body.data as IDataObject;
			for (let i = 0; i < 25; i++)
				await sb.get().control.deliver(Number(hook.id), 'scan.completed');
			const parameters = { resource: 'webhook', operation: 'getLogs', webhookId: String(hook.id) };
			const [answer] = (await call({ parameters, args: {} })).json as IDataObject[];
			expect(answer).toEqual({
				webhook_id: hook.id,
				total: 25,
				shown: 20,
				logs: expect.any(Array),
			});
			const logs = answer.logs as IDataObject[];
			expect(logs).toHaveLength(20);
			expect(new Set(logs.map((log) => log.id)).size).toBe(20);
			const times = logs.map((log) => Date.parse(String(log.created_at)));
			expect([...times].sort((a, b) => b - a)).toEqual(times);
			expect(jsonOf(await run(sb.env(), parameters))).toHaveLength(25);
		} finally {
			receiver.closeAllConnections();
			await new Promise<void>((resolve) => receiver.close(() => resolve()));
		}
	});
});

describe('figure: characters of the tool’s answer', () => {
	test('a Get of a scan with 40 line items and a Get Many of 50 scans, before and after', async () => {
		const ids = seed(50);
		const get = { resource: 'scan', operation: 'get', scanId: SCAN_ID };
		const many = { resource: 'scan', operation: 'getAll', limit: LIMIT };
		const size = async (parameters: INodeParameters, args: IDataObject, output?: string) =>
			(
				await call({
					// Before: the Output modes without the answer's bound (as before it existed)
					parameters: output
						? { ...parameters, options: { output }, answerBound: 1e9 }
						: parameters,
					args,
				})
			).text.length;
		const rows = [
			['Get (40 line items)', get, { scanId: ids[0] }],
			['Get Many (50 scans of 40 line items)', many, { limit: 50 }],
		] as const;
		const figures: Array<[string, number, number, number]> = [];
		for (const [what, parameters, args] of rows) {
			figures.push([
				what,
				await size(parameters, args, 'raw'),
				await size(parameters, args, 'fields'),
				await size(parameters, args),
			]);
		}
		console.log(
			[
				'characters of the tool answer: Raw Scan (the default before) | Extracted Fields (recommended before) | compact (the default now)',
				...figures.map(
					([what, raw, fields, compact]) =>
						`${what}: ${raw} | ${fields} | ${compact} (${((100 * compact) / fields).toFixed(1)} % of Extracted Fields)`,
				),
			].join('\n'),
		);
		const [[, getRaw, getFields, getCompact], [, manyRaw, manyFields, manyCompact]] = figures;
		expect(getCompact).toBeLessThan(getFields * 0.4);
		expect(manyCompact).toBeLessThan(manyFields * 0.1);
		// The docs quote these figures.
		const n = (value: number) => value.toLocaleString('en-US');
		const flat = (file: string) =>
			readFileSync(path.join(__dirname, '../..', file), 'utf8').replace(/\s+/g, ' ');
		expect(flat('README.md')).toContain(
			`${n(getCompact)} characters instead of ${n(getFields)} (*Extracted Fields*), a Get Many of 50 such scans ${n(manyCompact)} instead of ${n(manyFields)}`,
		);
		expect(flat('docs/reference.md')).toContain(
			`| Scan → Get, a scan with 40 line items | ${n(getRaw)} | ${n(getFields)} | ${n(getCompact)} | | Scan → Get Many, 50 such scans | ${n(manyRaw)} | ${n(manyFields)} | ${n(manyCompact)} |`,
		);
	});
});

describe('compactScan (property-based)', () => {
	const value = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null));
	const row = fc.dictionary(fc.constantFrom('position', 'article', 'amount'), value);
	const data = fc.dictionary(
		fc.constantFrom(
			'invoice_number',
			'total',
			'line_items',
			'taxes',
			'rows',
			'status',
			'scan_id',
			'not_shown',
		),
		fc.oneof(value, fc.array(row, { maxLength: 30 })),
	);

	test('each list keeps its first entries and counts the rest; what the scan is always wins', () => {
		fc.assert(
			fc.property(
				data,
				fc.option(fc.array(fc.string({ maxLength: 5 }), { maxLength: 30 }), { nil: null }),
				fc.integer({ min: 0, max: 12 }),
				(extracted, validation, rows) => {
					const scan = {
						id: 7,
						status: 'completed',
						extracted_data: extracted,
						validation_errors: validation,
					};
					const answer = compactScan(scan, rows);
					expect(answer.scan_id).toBe(7);
					expect(answer.status).toBe('completed');
					const lists = {
						...extracted,
						...(Array.isArray(validation) ? { validation_errors: validation } : {}),
					};
					const notShown = (answer.not_shown ?? {}) as IDataObject;
					for (const [key, entries] of Object.entries(lists)) {
						if (['scan_id', 'status', 'not_shown'].includes(key)) continue; // the answer's own names win
						if (!Array.isArray(entries)) {
							expect(answer[key]).toEqual(entries);
							continue;
						}
						const shown = (answer[key] as unknown[] | undefined) ?? [];
						expect(shown).toEqual(entries.slice(0, rows));
						expect(shown.length + Number(notShown[key] ?? 0)).toBe(entries.length);
					}
				},
			),
			runs(3401, 300),
		);
	});
});
