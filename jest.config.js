/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }],
	},
	testTimeout: 30000,
	// n8n's user folder (.n8n/config) goes to a temporary folder, never into $HOME.
	globalSetup: '<rootDir>/test/support/global-setup.ts',
	globalTeardown: '<rootDir>/test/support/global-teardown.ts',
	setupFilesAfterEnv: ['<rootDir>/test/support/jest.setup.ts'],
	// No watchman on CI machines; jest would wait for it.
	watchman: false,
};
