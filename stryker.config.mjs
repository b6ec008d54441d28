// Mutation testing (Stryker) of the modules that guard money and trust. See CONTRIBUTING.md
// ("Mutation testing"): `npm run mutation` runs every group; `MUTATION_GROUP=trigger npm run
// mutation` one of them. Reports go to reports/mutation/<groups>/ (gitignored).
//
// By default each group runs the test files that import its modules from the sources (unit and
// property tests): seconds per mutant. With MUTATION_ENGINE=1 the group's engine tests (which
// load the built package, dist/) run too; the instrumented sources are then built first
// (buildCommand), and each mutant costs about half a minute on two cores.
import baseJest from './jest.config.js';

const GROUPS = {
	trigger: {
		mutate: [
			'nodes/DocumentScanningTrigger/signature.ts',
			'nodes/DocumentScanningTrigger/replay.ts',
			'nodes/DocumentScanningTrigger/scanId.ts',
		],
		unit: ['edge-units', 'signature-units', 'scan-id.property'].map(
			(name) => `<rootDir>/test/trigger/${name}.test.ts`,
		),
		engine: ['<rootDir>/test/trigger/*.test.ts'],
	},
	repeats: {
		mutate: ['nodes/DocumentScanningTrigger/deliveryKey.ts', 'nodes/shared/reviewedData.ts'],
		unit: [
			'trigger/delivery-key-units',
			'node/reviewed-data.property',
			'node/reviewed-data.units',
		].map((name) => `<rootDir>/test/${name}.test.ts`),
		engine: [
			'<rootDir>/test/trigger/repeats*.test.ts',
			'<rootDir>/test/node/reviewed-data*.test.ts',
		],
	},
	upload: {
		mutate: [
			'nodes/DocumentScanning/upload/*.ts',
			'!nodes/DocumentScanning/upload/index.ts',
			'!nodes/DocumentScanning/upload/binary.ts',
			'!nodes/DocumentScanning/upload/binaryEntry.ts',
		],
		unit: [
			'<rootDir>/test/node/file-names*.test.ts',
			'<rootDir>/test/node/fingerprint.test.ts',
			'<rootDir>/test/node/multipart-body.test.ts',
			'<rootDir>/test/node/template-scans.units.test.ts',
			'<rootDir>/test/node/budget-plan.test.ts',
			'<rootDir>/test/node/file-names.units.test.ts',
			'<rootDir>/test/node/multipart.units.test.ts',
		],
		engine: ['<rootDir>/test/node/upload*.test.ts'],
	},
	paging: {
		mutate: [
			'nodes/shared/transport/listingReader.ts',
			'nodes/shared/transport/listingPages.ts',
			'nodes/shared/transport/listingEnds.ts',
			'nodes/shared/transport/listingRepair.ts',
			'nodes/shared/transport/listingCoverage.ts',
			'nodes/shared/transport/paging.ts',
		],
		unit: [
			'<rootDir>/test/transport/listing-reader.property.test.ts',
			'<rootDir>/test/transport/listing-reader.units.test.ts',
			'<rootDir>/test/transport/listing-ends.units.test.ts',
			'<rootDir>/test/transport/listing-model.property.test.ts',
			'<rootDir>/test/transport/paging.units.test.ts',
		],
		engine: [
			'<rootDir>/test/node/paging.test.ts',
			'<rootDir>/test/transport/transport.test.ts',
			'<rootDir>/test/poll-trigger/exactly-once.test.ts',
		],
	},
	state: {
		mutate: [
			'nodes/DocumentScanningPollTrigger/state.ts',
			'nodes/DocumentScanningPollTrigger/commit.ts',
			'nodes/DocumentScanningPollTrigger/unseen.ts',
			'nodes/DocumentScanningPollTrigger/follow.ts',
		],
		unit: [
			'<rootDir>/test/poll-trigger/poll-state.units.test.ts',
			'<rootDir>/test/poll-trigger/window.units.test.ts',
		],
		engine: ['<rootDir>/test/poll-trigger/*.test.ts'],
	},
};

const engine = process.env.MUTATION_ENGINE === '1';
// Property tests run fewer cases per mutant (same fixed seeds); see test/support/property-runs.ts.
process.env.PROPERTY_RUNS_SCALE ??= '0.25';

/** Unit runs need neither n8n's user folder nor type-checking (the build type-checks). */
const unitJest = {
	...baseJest,
	globalSetup: undefined,
	globalTeardown: undefined,
	setupFilesAfterEnv: [],
	transform: {
		'^.+\\.ts$': [
			'ts-jest',
			{ tsconfig: 'tsconfig.dev.json', isolatedModules: true, diagnostics: false },
		],
	},
};
const names = process.env.MUTATION_GROUP
	? process.env.MUTATION_GROUP.split(',')
	: Object.keys(GROUPS).filter((name) => engine || GROUPS[name].unit.length > 0);
for (const name of names)
	if (!GROUPS[name])
		throw new Error(`Unknown MUTATION_GROUP ${name}; one of ${Object.keys(GROUPS).join(', ')}`);
const selected = names.map((name) => GROUPS[name]);
const label = names.join('+') + (engine ? '-engine' : '');
const testMatch = selected.flatMap((group) =>
	engine ? [...group.unit, ...group.engine] : group.unit,
);
if (testMatch.length === 0)
	throw new Error(`MUTATION_GROUP ${label} has no unit tests; run it with MUTATION_ENGINE=1`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	packageManager: 'npm',
	testRunner: 'jest',
	plugins: ['@stryker-mutator/jest-runner'],
	mutate: selected.flatMap((group) => group.mutate),
	...(engine ? { buildCommand: 'npm run build' } : {}),
	coverageAnalysis: 'perTest',
	jest: {
		projectType: 'custom',
		config: { ...(engine ? baseJest : unitJest), testMatch },
		enableFindRelatedTests: false,
	},
	// Two shared cores: one test process at a time.
	concurrency: 1,
	timeoutMS: 5000,
	tempDirName: '.stryker-tmp',
	ignorePatterns: ['.n8n-local', 'reports', 'bench/results', 'coverage', 'dist'],
	reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
	htmlReporter: { fileName: `reports/mutation/${label}/index.html` },
	jsonReporter: { fileName: `reports/mutation/${label}/mutation.json` },
	thresholds: { high: 85, low: 70, break: null },
};
