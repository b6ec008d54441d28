/**
 * The invariants of issue 31 in every generated world (test/invariants/generator.ts). `npm test`
 * runs it on a seed that rotates every hour, within its time budget, and prints the seed;
 * `npm run invariants -- --runs N --seed S` runs it longer or replays a failure.
 */
import { writeFileSync } from 'node:fs';

import { configFromEnv, runGenerator } from './generator';

const config = configFromEnv();

test(
	`the invariants hold in every generated case (seed ${config.seed})`,
	async () => {
		process.stdout.write(
			`invariants: seed ${config.seed}, up to ${config.runs} cases in ${config.budgetMs / 1000} s (npm run invariants -- --seed ${config.seed} replays it)\n`,
		);
		const result = await runGenerator(config, (line) => process.stdout.write(`${line}\n`));
		process.stdout.write(`${result.report}\n`);
		if (process.env.INVARIANTS_REPORT) {
			const { runs, seconds, first } = result;
			writeFileSync(process.env.INVARIANTS_REPORT, JSON.stringify({ runs, seconds, first }));
		}
		if (config.survey) {
			process.stdout.write(`${JSON.stringify(result.findings, null, 2)}\n`);
			return;
		}
		if (result.failure) throw new Error(result.report);
	},
	config.budgetMs + 240_000,
);
