/**
 * Runs workflows in the real n8n lines that `npm start` installs (.n8n-local/, on Node 24),
 * against a sandbox that is already running, and prints one JSON document:
 *
 *   node tools/bench/real-n8n.mjs '{"origin":"http://127.0.0.1:PORT","lines":["1.123.81","2.40.7"],"scenarios":[...]}'
 *
 * Per line a fresh n8n home (.n8n-local/bench-home-<version>/) with this package and the
 * sandbox's credential; every workflow runs as `n8n execute --id --rawOutput`. Scenarios:
 * - "batch" (tools/bench/real-n8n/batch.mjs): our node (Upload, Wait for Completion, default
 *   options) or the do-it-yourself path (HTTP Request upload → Wait 5 s → HTTP Request GET),
 *   `uploads` documents, at most `perHour` an hour (one execution per hour on the sandbox's
 *   virtual clock);
 * - "memory" (tools/bench/real-n8n/memory.mjs): the increase of peak RSS during the upload step
 *   alone, our node at Concurrency `concurrency` next to the HTTP Request node in batches of
 *   as many, filesystem binary mode, `processes` processes each;
 * - "returnAll" and "timeout" (tools/bench/real-n8n/listing.mjs).
 * Each line's entry holds the load average seen while it ran. A line that is not installed is
 * { skipped: "…" }.
 */

import { batchFigure } from './real-n8n/batch.mjs';
import { returnAllFigure, timeoutFigure } from './real-n8n/listing.mjs';
import { memoryFigure } from './real-n8n/memory.mjs';
import { N8N_NODE, watchLoad } from './results-file.js';
import { prepareLine } from './real-n8n/run.mjs';

const FIGURES = {
	batch: batchFigure,
	memory: memoryFigure,
	returnAll: returnAllFigure,
	timeout: timeoutFigure,
};

export async function runRealN8n({ origin, lines, scenarios }) {
	const baseUrl = `${origin}/api/v1`;
	const results = [];
	for (const version of lines) {
		const prepared = await prepareLine(version, baseUrl);
		if (!prepared) {
			results.push({
				n8n: version,
				skipped: `n8n ${version} is not installed in .n8n-local/ (run \`npm start -- --n8n ${version}\` once)`,
			});
			continue;
		}
		const stopWatching = watchLoad();
		const startedAt = new Date().toISOString();
		const figures = [];
		for (const [index, scenario] of scenarios.entries()) {
			const figure = FIGURES[scenario.kind];
			if (!figure) throw new Error(`unknown scenario kind "${scenario.kind}"`);
			const workflowId = `bench${String(index).padStart(3, '0')}`;
			process.stderr.write(`[bench] n8n ${version}: ${JSON.stringify(scenario)}\n`);
			const stopScenario = watchLoad();
			const date = new Date().toISOString();
			const measured = await figure({ origin, baseUrl, env: prepared.env, workflowId, scenario });
			figures.push({ scenario: scenario.kind, date, loadAverage: stopScenario(), ...measured });
		}
		results.push({
			n8n: version,
			node: N8N_NODE,
			startedAt,
			loadAverage: stopWatching(),
			figures,
		});
	}
	return { lines: results };
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const input = JSON.parse(process.argv[2] ?? '{}');
	runRealN8n(input).then(
		(result) => {
			process.stdout.write(`\n@@RESULT@@${JSON.stringify(result)}\n`);
			process.exit(0);
		},
		(error) => {
			process.stdout.write(
				`\n@@RESULT@@${JSON.stringify({ error: String(error?.stack ?? error) })}\n`,
			);
			process.exit(1);
		},
	);
}
