/**
 * fast-check settings of the property tests: a fixed seed, and `numRuns` cases (scaled down by
 * PROPERTY_RUNS_SCALE, e.g. 0.25 under mutation testing, where every mutant reruns them).
 */
export function runs(seed: number, numRuns: number): { seed: number; numRuns: number } {
	const scale = Number(process.env.PROPERTY_RUNS_SCALE ?? '1');
	const factor = Number.isFinite(scale) && scale > 0 ? scale : 1;
	return { seed, numRuns: Math.max(10, Math.round(numRuns * factor)) };
}
