/**
 * Keeps every write of a benchmark run out of the user's home and out of tracked files.
 * Imported first by tools/bench/bench.ts, before anything loads n8n-core:
 * - n8n-core's InstanceSettings writes `<N8N_USER_FOLDER or $HOME>/.n8n/config` the first time
 *   the engine needs it, so N8N_USER_FOLDER points at a fresh temporary folder, removed at exit
 *   (a user's own N8N_USER_FOLDER is overridden on purpose: a benchmark must not write there);
 * - results go to the ignored `.bench/` folder of the repository (`BENCH_OUT_DIR`), never to a
 *   tracked file, so a run leaves `git status` clean.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const BENCH_OUT_DIR = path.join(__dirname, '..', '..', '.bench');

const folder = mkdtempSync(path.join(tmpdir(), 'n8n-nodes-document-scanning-bench-'));
process.env.N8N_USER_FOLDER = folder;
process.on('exit', () => rmSync(folder, { recursive: true, force: true }));

export function benchOutFile(name: string): string {
	mkdirSync(BENCH_OUT_DIR, { recursive: true });
	return path.join(BENCH_OUT_DIR, name);
}
