/**
 * Scan → Get Many with Return All while other clients add scans (issue: listings that move
 * while they are read). The sandbox creates scans when a chosen listing request arrives.
 */
import { idsOf, run, useSandbox } from './helpers';

const sb = useSandbox();

const getAll = { resource: 'scan', operation: 'getAll', returnAll: true };

for (const envelope of ['data', 'bare'] as const) {
	describe(`${envelope} envelope`, () => {
		beforeEach(() => sb.get().control.reset({ envelope }));

		test('1 new scan during a 75-scan listing: all 75 come out, each once', async () => {
			const ids = sb.get().control.seedScans({ count: 75 });
			sb.get().control.createScansDuringListing(1, { count: 1 });
			const result = await run(sb.env(), getAll);
			expect(result.error).toBeUndefined();
			const out = idsOf(result);
			expect(new Set(out).size).toBe(out.length);
			expect(out.filter((id) => ids.includes(id)).sort((a, b) => a - b)).toEqual(ids);
		});

		test("25 new scans after page 1: page 2 starts with page 1's first scan, and reading goes on (60 of 60)", async () => {
			const ids = sb.get().control.seedScans({ count: 60 });
			sb.get().control.createScansDuringListing(1, { count: 25 });
			const result = await run(sb.env(), getAll);
			expect(result.error).toBeUndefined();
			const out = idsOf(result);
			expect(new Set(out).size).toBe(out.length);
			expect(out.filter((id) => ids.includes(id)).sort((a, b) => a - b)).toEqual(ids);
		});

		test('scans added at several moments of a 300-scan listing: every scan that existed comes out once', async () => {
			const ids = sb.get().control.seedScans({ count: 300 });
			for (const [after, count] of [
				[1, 3],
				[3, 30],
				[6, 1],
				[9, 7],
			])
				sb.get().control.createScansDuringListing(after, { count });
			const result = await run(sb.env(), getAll);
			expect(result.error).toBeUndefined();
			const out = idsOf(result);
			expect(new Set(out).size).toBe(out.length);
			expect(out.filter((id) => ids.includes(id)).sort((a, b) => a - b)).toEqual(ids);
		});
	});
}
