/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }],
	},
	testTimeout: 30000,
	setupFilesAfterEnv: ['<rootDir>/test/harness/jest.setup.ts'],
	// No watchman on CI machines; jest would wait for it.
	watchman: false,
};
