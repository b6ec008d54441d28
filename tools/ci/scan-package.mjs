#!/usr/bin/env node
// Runs n8n's verification lint gate (@n8n/scan-community-package's analyzePackage) offline:
//   node tools/ci/scan-package.mjs            the source tree (package.json, nodes/, credentials/)
//   node tools/ci/scan-package.mjs --packed   the tarball `npm pack` produces, unpacked
// The tarball leg lints the compiled .js and package.json, as n8n does for a published package.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function scanPacked() {
	const work = mkdtempSync(path.join(tmpdir(), 'n8n-scan-'));
	try {
		const [{ filename }] = JSON.parse(
			execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
				cwd: root,
				encoding: 'utf8',
			}),
		);
		const unpacked = path.join(work, 'package');
		execFileSync('tar', ['-xzf', path.join(work, path.basename(filename)), '-C', work]);
		return await analyzePackage(unpacked, ['**/*.js', 'package.json']);
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

const packed = process.argv.includes('--packed');
const result = packed ? await scanPacked() : await analyzePackage(root, SOURCE_FILE_PATTERNS);
const label = packed ? 'packed tarball' : 'source';
if (result.passed) {
	console.log(`n8n community package scan (${label}): passed`);
} else {
	console.error(
		`n8n community package scan (${label}): ${result.message}\n${result.details ?? ''}`,
	);
	process.exitCode = 1;
}
