// `npm run e2e -- --queue --n8n <version> --save`: the queue run's figures (load and faults parts)
// into docs/benchmarks/results.json as the part `queue-<version>`, with the date, machine, command
// and load average, as `npm run bench -- --save` records its parts; tools/bench/report.mjs then
// writes the table of docs/benchmarks.md that quotes them. Only a run with every check passed.
import os from 'node:os';

import { savePart } from '../../bench/report.mjs';

/** Samples the 1-minute load average every 5 s; the returned function ends it with the summary. */
export function watchLoad() {
	const samples = [os.loadavg()[0]];
	const timer = setInterval(() => samples.push(os.loadavg()[0]), 5000).unref();
	return () => {
		clearInterval(timer);
		const round = (value) => Math.round(value * 100) / 100;
		const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
		return {
			min: round(Math.min(...samples)),
			mean: round(mean),
			max: round(Math.max(...samples)),
			cores: os.cpus().length,
		};
	};
}

/** Saves `figures` (name → printed value) of one n8n line's queue run. */
export function saveQueueFigures({ version, figures, loadAverage }) {
	const cpus = os.cpus();
	const part = {
		date: new Date().toISOString(),
		command: `npm run e2e -- --queue --n8n ${version} --save`,
		machine: `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown'}), ${Math.round(os.totalmem() / 1024 ** 3)} GB, ${process.platform}/${process.arch}`,
		node: 'Node 24 (.n8n-local)',
		n8n: `n8n ${version}`,
		loadAverage,
		figures,
	};
	savePart(`queue-${version}`, part);
	console.log(`saved: queue-${version} into docs/benchmarks/results.json`);
}
