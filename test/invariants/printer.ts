/**
 * A failing case, printed as a ready test: the invariant broken, the world, the settings and
 * runs (the case as data, replayed by `replayCase`), and the requests in order.
 */
import type { Case } from './cases';
import type { Observation } from './execution';
import { INVARIANTS, type Violation } from './invariants';

export interface Failure {
	case: Case;
	observation: Observation;
	violations: Violation[];
	seed: number;
	path?: string;
	/** Whether running the case again broke the same invariants. */
	replayed?: boolean;
}

function requestLines(observation: Observation): string[] {
	return observation.executions.flatMap((e) => [
		`// ${e.label}${e.error ? ` → error: ${e.error.message.slice(0, 140)}` : ''}${e.timedOut ? ' → still running at its bound' : ''}`,
		...e.requests.slice(0, 60).map((r) => {
			const query = new URLSearchParams(r.query).toString();
			const extras = [
				r.fault && `fault ${r.fault}`,
				r.origin === 'other' && 'OTHER ORIGIN',
				r.authScheme !== 'none' && r.origin === 'other' && `key in ${r.authScheme}`,
				r.scanId !== undefined && `created scan ${r.scanId}`,
			].filter(Boolean);
			return `//   ${r.method} ${r.path}${query ? `?${query}` : ''} → ${r.status ?? 'dropped'}${extras.length ? ` (${extras.join(', ')})` : ''}`;
		}),
		...(e.requests.length > 60 ? [`//   … ${e.requests.length - 60} more requests`] : []),
	]);
}

export function printFailure(failure: Failure): string {
	const first = failure.violations[0];
	const title = `invariant ${first.invariant}: ${INVARIANTS[first.invariant]}`;
	const replay = `npm run invariants -- --seed ${failure.seed}${failure.path ? ` --path ${failure.path}` : ''}`;
	return [
		`Broken: ${title}`,
		...failure.violations.map((v) => `  - invariant ${v.invariant} (${v.where}): ${v.detail}`),
		`Replay: ${replay}${failure.replayed === undefined ? '' : failure.replayed ? ' (replayed: broken again)' : ' (replayed: held the second time: timing-dependent)'}`,
		'',
		'Ready test (e.g. in test/invariants/found.test.ts):',
		'',
		"import { replayCase } from './generator';",
		'',
		`test(${JSON.stringify(title)}, async () => {`,
		...requestLines(failure.observation).map((line) => `\t${line}`),
		`\tconst broken = await replayCase(${JSON.stringify(failure.case, null, '\t').split('\n').join('\n\t')});`,
		'\texpect(broken).toEqual([]);',
		'}, 120_000);',
	].join('\n');
}
