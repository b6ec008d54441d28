/**
 * Keeps n8n's user folder out of the user's home during tests.
 *
 * n8n-core's InstanceSettings writes `<N8N_USER_FOLDER or $HOME>/.n8n/config` (the instance's
 * encryption key) the first time the engine needs it. Jest's globalSetup runs in the parent
 * process before any worker starts (and before any test file loads n8n-core), and workers
 * inherit its environment, so pointing N8N_USER_FOLDER at a fresh temporary folder here keeps
 * every write there. globalTeardown removes the folder.
 *
 * A user's own N8N_USER_FOLDER is overridden on purpose: tests must not write into it either.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Set while the tests run; names the folder this setup created (and teardown removes). */
export const TEST_USER_FOLDER_VAR = 'DOCUMENT_SCANNING_TEST_USER_FOLDER';

export function setup(): void {
	const folder = mkdtempSync(path.join(tmpdir(), 'n8n-nodes-document-scanning-test-'));
	process.env.N8N_USER_FOLDER = folder;
	process.env[TEST_USER_FOLDER_VAR] = folder;
}

export function teardown(): void {
	const folder = process.env[TEST_USER_FOLDER_VAR];
	if (folder && path.basename(folder).startsWith('n8n-nodes-document-scanning-test-')) {
		rmSync(folder, { recursive: true, force: true });
	}
}
