// Lint for what the package does not ship: tests, the sandbox, benchmarks and scripts.
// n8n's official config (eslint.config.mjs, which `n8n-node cloud-support` requires unchanged)
// covers the package's own files: `npm run lint` runs it on nodes/, credentials/ and
// package.json. Here the same config applies, less the rules about what a node may do inside
// n8n: tests, the sandbox and scripts read the environment, use the file system, print to the
// console and build errors freely. Why: docs/design.md, "Tooling".
// n8n's config lints TypeScript only; the tools' JavaScript (.mjs, .js) gets ESLint's own
// recommended rules with Node's globals.
import js from '@eslint/js';
import { config } from '@n8n/node-cli/eslint';
import globals from 'globals';

const NODE_RUNTIME_RULES = [
	'@n8n/community-nodes/no-restricted-globals',
	'@n8n/community-nodes/no-restricted-imports',
	'@n8n/community-nodes/no-dangerous-functions',
	'@n8n/community-nodes/no-hardcoded-secrets',
	'@n8n/community-nodes/require-node-api-error',
	'no-console',
];

export default [
	{
		ignores: ['dist/', 'tools/n8n-node-cli/', 'coverage/', '.n8n-local/', 'nodes/', 'credentials/'],
	},
	...config,
	{
		files: ['**/*.ts'],
		rules: {
			...Object.fromEntries(NODE_RUNTIME_RULES.map((rule) => [rule, 'off'])),
			// Tests load modules inside jest.isolateModules, type loose fixtures, and feed the
			// node numbers JSON cannot hold exactly on purpose; `_name` marks a value left out.
			'@typescript-eslint/no-require-imports': 'off',
			'@typescript-eslint/no-explicit-any': 'off',
			'no-loss-of-precision': 'off',
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
			],
		},
	},
	{
		files: ['**/*.mjs', '**/*.js'],
		...js.configs.recommended,
		languageOptions: {
			ecmaVersion: 'latest',
			sourceType: 'module',
			globals: { ...globals.node },
		},
		rules: {
			...js.configs.recommended.rules,
			'no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
			],
		},
	},
	{ files: ['**/*.js'], languageOptions: { sourceType: 'commonjs' } },
];
