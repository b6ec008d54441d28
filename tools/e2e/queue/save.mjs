// `npm run e2e -- --queue --n8n <version> --save`: the queue run's figures (load and faults parts)
// into docs/benchmarks/results.json as the part `queue-<version>`, with the date, machine, command
// and load average, as `npm run bench -- --save` records its parts; tools/bench/report.mjs then
// writes the table of docs/benchmarks.md that quotes them. Only a run with every check passed.
import { savePart } from '../../bench/report.mjs';
import { N8N_NODE, machine } from '../../bench/results-file.js';

export { watchLoad } from '../../bench/results-file.js';

/** Saves `figures` (name → printed value) of one n8n line's queue run. */
export function saveQueueFigures({ version, figures, loadAverage }) {
	savePart(`queue-${version}`, {
		date: new Date().toISOString(),
		command: `npm run e2e -- --queue --n8n ${version} --save`,
		machine: machine(),
		node: N8N_NODE,
		n8n: `n8n ${version}`,
		loadAverage,
		figures,
	});
	console.log(`saved: queue-${version} into docs/benchmarks/results.json`);
}
