// What the local n8n is given: the sandbox credential and the workflows (examples/*.json as
// local copies, the e2e's own), imported through the n8n CLI.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './lines.mjs';
import { FILES_DIR } from './install.mjs';
import { n8nEnv, n8nSync } from './processes.mjs';

// ---------------------------------------------------------------------------------------------
// The sandbox, the credential, the workflows, the owner account

export const SANDBOX_KEY = 'sk_test_sandbox_key';
export const CREDENTIAL = {
	id: '1',
	name: 'Document Scanning sandbox',
	type: 'documentScanningApi',
};
/** Fixed workflow ids for the import copies of examples/*.json (re-import overwrites by id). */
export const EXAMPLE_IDS = {
	'daily-credit-check.json': 'docscanExample01',
	'invoice-line-items-to-erp.json': 'docscanExample02',
	'scan-events.json': 'docscanExample03',
};

function checkImport(what, r) {
	const text = `${r.stdout}\n${r.stderr}`;
	if (r.status !== 0 || !/Successfully imported/i.test(text) || /An error occurred/i.test(text)) {
		throw new Error(`n8n ${what} failed (exit ${r.status}):\n${text.trim()}`);
	}
}

/**
 * Imports (creates or overwrites) the credential "Document Scanning sandbox" with id 1, or
 * `credential` (another id and name) sending the key as `authHeader`.
 */
export function importCredential({
	baseUrl,
	env = n8nEnv(),
	apiKey = SANDBOX_KEY,
	credential = CREDENTIAL,
	authHeader = 'authorization',
}) {
	const dir = path.join(env.N8N_USER_FOLDER, 'import');
	mkdirSync(dir, { recursive: true });
	const file = path.join(dir, 'credentials.json');
	const data = { baseUrl, apiKey, authHeader };
	writeFileSync(file, JSON.stringify([{ ...credential, data }], null, 2) + '\n', { mode: 0o600 });
	const r = n8nSync(['import:credentials', `--input=${file}`], { env });
	checkImport('import:credentials', r);
	rmSync(file, { force: true }); // it holds the key in clear text
}

/** The file names in examples/ (sorted). */
export function exampleFiles() {
	return readdirSync(path.join(ROOT, 'examples'))
		.filter((f) => f.endsWith('.json'))
		.sort();
}

/** The fixed workflow id of an example's import copy. */
export function exampleId(file) {
	return EXAMPLE_IDS[file] ?? `docscan${file.replace(/[^a-zA-Z0-9]/g, '').slice(0, 9)}`;
}

/**
 * The local import copy of an example: its fixed id, inactive, and `/data/...` file paths of Read/Write
 * Files nodes pointing into FILES_DIR (`/data/invoices/*.pdf` -> .n8n-local/files/invoices/*.pdf).
 * Node names, ids and every other parameter stay as shipped.
 */
export function localExample(
	file,
	workflow = JSON.parse(readFileSync(path.join(ROOT, 'examples', file), 'utf8')),
) {
	const nodes = workflow.nodes.map((node) => {
		const selector = node.parameters?.fileSelector;
		if (
			node.type !== 'n8n-nodes-base.readWriteFile' ||
			typeof selector !== 'string' ||
			!selector.startsWith('/data/')
		)
			return node;
		return {
			...node,
			parameters: {
				...node.parameters,
				fileSelector: path.join(FILES_DIR, selector.slice('/data/'.length)),
			},
		};
	});
	return { ...workflow, nodes, id: exampleId(file), active: false };
}

/** Where the shipped examples expect `npm start`'s sandbox (the ERP stand-in of scans-to-erp-with-review.json). */
const SHIPPED_SANDBOX_ORIGIN = 'http://localhost:8787';

/**
 * Writes the local copies of examples/*.json (localExample) and imports them; with
 * `sandboxOrigin`, URLs to the shipped sandbox origin point there instead (SANDBOX_PORT, the e2e's port).
 */
export function importExamples({ env = n8nEnv(), sandboxOrigin = SHIPPED_SANDBOX_ORIGIN } = {}) {
	const dir = path.join(env.N8N_USER_FOLDER, 'import', 'workflows');
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	const names = [];
	for (const file of exampleFiles()) {
		const workflow = localExample(file);
		const text = JSON.stringify(workflow, null, 2).replaceAll(
			SHIPPED_SANDBOX_ORIGIN,
			sandboxOrigin,
		);
		writeFileSync(path.join(dir, file), text + '\n');
		names.push(workflow.name);
	}
	const r = n8nSync(['import:workflow', '--separate', `--input=${dir}`], { env });
	checkImport('import:workflow', r);
	return names;
}

/** Imports one workflow object (with its id) from a file. */
export function importWorkflow(workflow, { env = n8nEnv() } = {}) {
	const dir = path.join(env.N8N_USER_FOLDER, 'import');
	mkdirSync(dir, { recursive: true });
	const file = path.join(dir, `${workflow.id}.json`);
	writeFileSync(file, JSON.stringify(workflow, null, 2) + '\n');
	const r = n8nSync(['import:workflow', `--input=${file}`], { env });
	checkImport('import:workflow', r);
}
