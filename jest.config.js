/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }],
	},
	testTimeout: 30000,
	// Suites mostly wait on the sandbox over loopback HTTP, not on the CPU: jest's default of one
	// worker per core but one (a single worker on 2 cores) left the machine idle. Measured with
	// `time npx jest --maxWorkers=N` on the 2-core machine: 1 worker 328 s, 3 workers 124 s.
	maxWorkers: 3,
	// n8n's user folder (.n8n/config) goes to a temporary folder, never into $HOME.
	globalSetup: '<rootDir>/test/support/global-setup.ts',
	globalTeardown: '<rootDir>/test/support/global-teardown.ts',
	setupFilesAfterEnv: ['<rootDir>/test/support/jest.setup.ts'],
	// No watchman on CI machines; jest would wait for it.
	watchman: false,
};
