#!/usr/bin/env node
// Release guard: the pushed tag must be "v" + package.json's version (v0.2.0 for 0.2.0).
// Usage: node tools/ci/check-release-tag.mjs <tag>   (the release workflow passes $GITHUB_REF_NAME)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const tag = (process.argv[2] ?? '').replace(/^refs\/tags\//, '');
const expected = `v${version}`;

if (tag !== expected) {
	console.error(
		`The tag "${tag}" does not match package.json's version ${version}: expected the tag "${expected}". ` +
			'Bump the version (npm version <x.y.z> --no-git-tag-version), commit, and tag that commit.',
	);
	process.exit(1);
}
console.log(`tag ${tag} matches package.json's version ${version}`);
