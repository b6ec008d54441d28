/**
 * The suite keeps n8n's user folder in a temporary folder (test/support/user-folder.ts):
 * running a workflow writes n8n's settings file there, never into $HOME/.n8n.
 * tools/ci/check-home.mjs checks the same from outside, with HOME set to an empty folder.
 */
import { existsSync, realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { Container } from '@n8n/di';
import { InstanceSettings } from 'n8n-core';

import { DEFAULT_API_KEY, startSandbox, type Sandbox } from '../../sandbox/server';
import { runNode } from '../support/run-node';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(async () => await sandbox.close());

const inside = (child: string, parent: string) => {
	const relative = path.relative(realpathSync(parent), realpathSync(child));
	return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

test("n8n's user folder is a fresh temporary folder, not the home folder", () => {
	const folder = process.env.N8N_USER_FOLDER;
	expect(folder).toBeTruthy();
	expect(inside(folder!, tmpdir())).toBe(true);
	expect(path.basename(folder!)).toMatch(/^n8n-nodes-document-scanning-test-/);
	expect(realpathSync(folder!)).not.toBe(realpathSync(homedir()));
});

test("running a workflow writes n8n's settings file into the temporary folder", async () => {
	const { error } = await runNode({
		parameters: { resource: 'account', operation: 'get' },
		env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY },
	});
	expect(error).toBeUndefined();
	const settings = Container.get(InstanceSettings);
	expect(settings.n8nFolder).toBe(path.join(process.env.N8N_USER_FOLDER!, '.n8n'));
	const settingsFile = path.join(settings.n8nFolder, 'config');
	expect(existsSync(settingsFile)).toBe(true);
	expect(inside(settingsFile, tmpdir())).toBe(true);
});
