/**
 * Issue 39 §2: Get Many outputs a listed record as the scan only when it holds what
 * GET /scans/{id} gives for its status; the sandbox's `unpromisedFields` rewrite lists finished
 * scans with their other fields null or of another type. Through n8n-core's engine.
 */
import { getManyParams, jsonOf, run, useSandbox } from './helpers';

const sb = useSandbox();

test.each(['null', 'text', 'number', 'list', 'object'])(
	'fields listed as %s: every finished scan comes out as read by ID',
	async (value) => {
		const control = sb.get().control;
		const ids = [
			...control.seedScans({ count: 2, status: 'validation_failed' }),
			...control.seedScans({ count: 2, status: 'completed' }),
		];
		control.setRewrites([{ rule: 'unpromisedFields', value, method: 'GET', path: '^/scans$' }]);
		const result = await run(sb.env(), getManyParams('validation_failed'));
		const out = jsonOf(result);
		expect(out.map((s) => s.id)).toEqual([ids[1], ids[0]]);
		for (const scan of out) {
			const stored = control.getScan(Number(scan.id))!;
			expect(scan.extracted_data).toEqual(stored.extractedData);
			expect(scan.extracted_data).toEqual(expect.any(Object));
			expect(scan.is_partial).toBe(stored.isPartial);
		}
	},
);
