/**
 * `npm run bench` picks one benchmark by name (default `all`) and passes the rest of the
 * arguments on:
 *
 *   npm run bench                       every figure of the action node (tools/bench/bench.ts)
 *   npm run bench -- --no-real-n8n      the same, flags as bench.ts reads them
 *   npm run bench -- poll-trigger       the poll trigger's figures (tools/bench/poll-trigger.ts)
 *   npm run bench -- rerun              the "Return Existing Scan" re-run alone (tools/bench/rerun.ts)
 *   npm run bench -- listing            requests of listings that change while read (tools/bench/listing.ts)
 *   npm run bench -- --help             this list
 *
 * Every benchmark prints ratios measured side by side in the run and asserts nothing.
 */
// First: n8n's user folder goes to a temporary folder before anything loads n8n-core.
import './user-folder';

interface Benchmark {
	what: string;
	main: () => Promise<void>;
}

/** Every benchmark of the repository: a new one is added here (and thereby to `--help`). */
export const BENCHMARKS: Record<string, Benchmark> = {
	all: {
		what: 'batches, paging, re-run, upload memory and the real n8n lines (bench.ts; --save: docs/benchmarks/results.json)',
		main: async () => await (await import('./bench')).main(),
	},
	'poll-trigger': {
		what: 'the poll trigger: requests and time of one poll by scans finished since the last',
		main: async () => await (await import('./poll-trigger')).main(),
	},
	rerun: {
		what: 'a re-run of 200 documents with "Return Existing Scan" (also part of all)',
		main: async () => await (await import('./rerun')).main(),
	},
	listing: {
		what: 'requests of Get Many by status and of the poll trigger while listings change (issue 25)',
		main: async () => await (await import('./listing')).main(),
	},
};

function usage(): string {
	const width = Math.max(...Object.keys(BENCHMARKS).map((name) => name.length));
	return [
		'usage: npm run bench [-- <name>] [-- flags of that benchmark]   (default: all)',
		...Object.entries(BENCHMARKS).map(([name, b]) => `  ${name.padEnd(width)}  ${b.what}`),
	].join('\n');
}

async function run(): Promise<void> {
	const args = process.argv.slice(2);
	if (args.includes('--help') || args.includes('-h')) {
		console.log(usage());
		return;
	}
	const named = args[0] !== undefined && !args[0].startsWith('-');
	const name = named ? args[0] : 'all';
	const benchmark = BENCHMARKS[name];
	if (!benchmark) throw new Error(`no benchmark "${name}"\n${usage()}`);
	// The chosen benchmark reads its own flags from process.argv.
	if (named) process.argv.splice(2, 1);
	await benchmark.main();
}

run().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error instanceof Error ? error.message : error);
		process.exit(1);
	},
);
