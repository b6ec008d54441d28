/**
 * The invariants of issue 31 in every generated world (test/invariants/generator.ts). `npm test`
 * runs its 40 cases on the seed of the commit and prints it: the same code gets the same
 * verdict. `npm run invariants` draws a fresh seed; `-- --runs N --seed S` runs longer or
 * replays a failure, and every seed it breaks becomes a test (found-*.test.ts).
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
