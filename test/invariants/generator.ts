/**
 * The generator: fast-check draws cases (cases.ts), each runs through n8n-core's engine against
 * one sandbox (run-*.ts), and every invariant is checked after it (invariants.ts). A failure is
 * shrunk, run once more to confirm it replays, and printed as a ready test (printer.ts).
 *
 * Settings (environment, set by `npm run invariants -- …`, tools/ci/invariants.mjs):
 *   INVARIANTS_SEED     the seed (default: chosen from the commit, printed: the same code gets the
 *                       same verdict; `npm run invariants` draws a fresh one)
 *   INVARIANTS_RUNS     cases to run (default 40)
 *   INVARIANTS_BUDGET_S stop drawing new cases after this many seconds (default 300: a safety
 *                       only, so that `npm test` runs all its cases on a slow machine too)
 *   INVARIANTS_KINDS    upload,getMany,poll,webhook,tool (default all)
 *   INVARIANTS_PATH     replay one case of a seed (printed with a failure)
 *   INVARIANTS_SURVEY   1: do not stop at a failure; record each class of defect found first
 *   INVARIANTS_TARGET   e.g. 7 or 2,4: only these invariants fail the run (the others are logged),
 *                       and the first failure ends it unshrunk (the regression script,
 *                       tools/ci/regressions.mjs)
 *   INVARIANTS_REPORT   a file to write the result to as JSON
 */
import { execFileSync } from 'node:child_process';

import fc from 'fast-check';

import { type Sandbox, startSandbox } from '../../sandbox/server';
import { type Case, caseArb, type CaseKind } from './cases';
import type { Observation } from './execution';
import { check, classOf, type Violation } from './invariants';
import { runGetManyCase } from './run-get-many';
import { runPollCase } from './run-poll';
import { runToolCase } from './run-tool';
import { runUploadCase } from './run-upload';
import { runWebhookCase } from './run-webhook';
import { type Failure, printFailure } from './printer';

export interface GeneratorConfig {
	seed: number;
	runs: number;
	budgetMs: number;
	kinds: CaseKind[];
	path?: string;
	survey: boolean;
	/** Only these invariants fail the run; the first failure ends it, unshrunk. */
	target?: number[];
}

const KINDS: CaseKind[] = ['upload', 'getMany', 'poll', 'webhook', 'tool'];

/** The seed of the commit checked out (its hash's first 28 bits), or 31 outside a git checkout. */
export function commitSeed(cwd = __dirname): number {
	try {
		const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8' });
		return Number.parseInt(head.trim().slice(0, 7), 16);
	} catch {
		return 31;
	}
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): GeneratorConfig {
	const kinds = (env.INVARIANTS_KINDS ?? '')
		.split(',')
		.map((k) => k.trim())
		.filter((k): k is CaseKind => (KINDS as string[]).includes(k));
	return {
		seed: env.INVARIANTS_SEED ? Number(env.INVARIANTS_SEED) : commitSeed(),
		runs: Number(env.INVARIANTS_RUNS ?? 40),
		budgetMs: Number(env.INVARIANTS_BUDGET_S ?? 300) * 1000,
		kinds: kinds.length ? kinds : KINDS,
		...(env.INVARIANTS_PATH ? { path: env.INVARIANTS_PATH } : {}),
		survey: env.INVARIANTS_SURVEY === '1',
		...(env.INVARIANTS_TARGET
			? { target: env.INVARIANTS_TARGET.split(',').map((n) => Number(n.trim())) }
			: {}),
	};
}

/** Runs one case on a sandbox and checks every invariant. */
export async function runCase(
	sandbox: Sandbox,
	c: Case,
): Promise<{ observation: Observation; violations: Violation[] }> {
	let observation: Observation;
	if (c.kind === 'upload') observation = { executions: await runUploadCase(sandbox, c) };
	else if (c.kind === 'getMany') observation = { executions: await runGetManyCase(sandbox, c) };
	else if (c.kind === 'poll') observation = await runPollCase(sandbox, c);
	else if (c.kind === 'tool') observation = { executions: await runToolCase(sandbox, c) };
	else observation = await runWebhookCase(sandbox, c);
	return { observation, violations: check(c, observation, { base: sandbox.origin }) };
}

export function startGeneratorSandbox(): Promise<Sandbox> {
	return startSandbox({ processingDelayMs: 20, allowInsecureWebhookUrls: true });
}

/** Runs a printed case once on a sandbox of its own; the invariants it broke. */
export async function replayCase(c: Case): Promise<Violation[]> {
	const sandbox = await startGeneratorSandbox();
	try {
		return (await runCase(sandbox, c)).violations;
	} finally {
		await sandbox.close();
	}
}

/** The first time a class of defect was found (survey mode). */
export interface Finding {
	class: string;
	/** The kind of case that found it. */
	kind?: CaseKind;
	run: number;
	seconds: number;
	violation: Violation;
	path: string;
}

export interface GeneratorResult {
	runs: number;
	seconds: number;
	/** The first case that broke an invariant (of the target, when one is set), and when. */
	first?: Finding;
	failure?: Failure;
	findings: Finding[];
	report: string;
}

export async function runGenerator(
	config: GeneratorConfig,
	log: (line: string) => void = () => undefined,
): Promise<GeneratorResult> {
	const sandbox = await startGeneratorSandbox();
	const started = Date.now();
	const findings: Finding[] = [];
	let first: Finding | undefined;
	let runs = 0;
	let last: { c: Case; observation: Observation; violations: Violation[] } | undefined;
	try {
		const property = fc.asyncProperty(caseArb(config.kinds), async (c) => {
			const run = runs++;
			const outcome = await runCase(sandbox, c);
			if (process.env.INVARIANTS_VERBOSE === '1')
				log(
					`case ${run + 1} (${c.kind}): ${outcome.violations.map((v) => `[${v.invariant}] ${v.where}: ${v.detail.slice(0, 300)}`).join(' || ') || 'ok'}`,
				);
			if (process.env.INVARIANTS_DEBUG === '1')
				log(
					JSON.stringify(
						{
							case: c,
							executions: outcome.observation.executions.map((e) => ({
								...e,
								wire: e.wire.length,
							})),
						},
						null,
						1,
					),
				);
			const counted = config.target
				? outcome.violations.filter((v) => config.target!.includes(v.invariant))
				: outcome.violations;
			if (counted.length === 0) return true;
			const seconds = Math.round((Date.now() - started) / 100) / 10;
			first ??= {
				class: classOf(counted[0]),
				kind: c.kind,
				run: run + 1,
				seconds,
				violation: counted[0],
				path: String(run),
			};
			if (config.survey) {
				for (const violation of counted) {
					const kind = classOf(violation);
					if (findings.some((f) => f.class === kind)) continue;
					findings.push({ class: kind, run: run + 1, seconds, violation, path: String(run) });
					log(
						`found "${kind}" at case ${run + 1} after ${seconds} s: ${violation.detail.slice(0, 200)}`,
					);
				}
				return true;
			}
			last = { c, ...outcome, violations: counted };
			return false;
		});
		const details = await fc.check(property, {
			seed: config.seed,
			numRuns: config.runs,
			...(config.path ? { path: config.path } : {}),
			interruptAfterTimeLimit: config.budgetMs,
			markInterruptAsFailure: false,
			endOnFailure: config.target !== undefined,
		});
		const seconds = Math.round((Date.now() - started) / 1000);
		let failure: Failure | undefined;
		if (details.failed && details.counterexample && config.target) {
			// The first failure as drawn (not shrunk): enough to say a regression was found.
			const { c, observation, violations } = last!;
			failure = { case: c, observation, violations, seed: config.seed, path: first!.path };
		} else if (details.failed && details.counterexample) {
			const [shrunk] = details.counterexample as [Case];
			// Run the shrunk case again: a real defect breaks the invariant again.
			const again = await runCase(sandbox, shrunk);
			const observed = again.violations.length ? again : last?.c === shrunk ? last : again;
			failure = {
				case: shrunk,
				observation: observed.observation,
				violations: observed.violations.length ? observed.violations : (last?.violations ?? []),
				seed: config.seed,
				path: details.counterexamplePath ?? undefined,
				replayed: again.violations.length > 0,
			};
		} else if (details.failed) {
			throw new Error(`The generator itself failed: ${String(details.errorInstance ?? 'unknown')}`);
		}
		const head = `invariants: seed ${config.seed}, ${runs} cases (${details.numRuns} passed the draw), ${seconds} s${details.interrupted ? ', stopped at the time budget' : ''}`;
		return {
			runs,
			seconds,
			first,
			failure,
			findings,
			report: failure ? `${head}\n${printFailure(failure)}` : head,
		};
	} finally {
		await sandbox.close();
	}
}
