/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.dev.json' }],
	},
	testTimeout: 30000,
	// n8n-core's engine keeps a few timers; tests close their servers themselves.
	forceExit: false,
};
