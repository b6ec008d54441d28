// Constants of the tools in one place: the package's name (read from package.json, its one
// source) and the figures about the local n8n that the tools
// print and the docs quote.
// test/tools/doc-figures.test.mjs checks that README.md, CONTRIBUTING.md and docs/local-n8n.md
// state the same (and that no doc counts the example workflows or sample invoices by hand).
import { readFileSync } from 'node:fs';

/** The npm package's name, as package.json gives it (node types are `<name>.<node>`). */
export const PACKAGE_NAME = JSON.parse(
	readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).name;

/**
 * A first `npm start` on a fresh clone with an empty npm cache: `npm ci`, Node 24, n8n 1.123.81 and
 * the first n8n start (measured: 331 s; docs/local-n8n.md, "Measured"). The disk figure is
 * `.n8n-local/` (Node 24 + n8n) plus what npm caches for them.
 */
export const FIRST_RUN = { minutes: '5–6', disk: '3 GB' };

/** The Node major that runs the local n8n (`npm install node@24` into .n8n-local/node24/). */
export const LOCAL_NODE_MAJOR = '24';

/**
 * What each tested n8n line asks of Node ("engines" of its package.json), in words. This is
 * n8n's requirement; the repository itself (tests, build, scripts) needs the Node of package.json's
 * "engines".
 */
export const N8N_NODE_RANGES = {
	'1.123.81': '20.19 to 24.x',
	'2.40.7': '24 or newer',
};
