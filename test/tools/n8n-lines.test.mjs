// node --test test/tools/ : choosing the n8n line for npm start / npm run e2e.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_N8N_VERSION, LOCAL, n8nLine, pickVersion } from '../../tools/n8n/lines.mjs';

test('--n8n <v> and --n8n=<v> win over N8N_LOCAL_VERSION, which wins over the default', () => {
	assert.deepEqual(
		pickVersion(['--n8n', '2.40.7', '--verbose'], { N8N_LOCAL_VERSION: '1.123.81' }),
		{ version: '2.40.7', rest: ['--verbose'] },
	);
	assert.deepEqual(pickVersion(['--n8n=2.40.7'], {}), { version: '2.40.7', rest: [] });
	assert.equal(pickVersion([], { N8N_LOCAL_VERSION: '2.40.7' }).version, '2.40.7');
	assert.equal(pickVersion([], {}).version, DEFAULT_N8N_VERSION);
});

test('refuses a missing or inexact version', () => {
	assert.throws(() => pickVersion(['--n8n'], {}), /needs a version/);
	assert.throws(() => pickVersion(['--n8n', 'latest'], {}), /exact version/);
	assert.throws(() => pickVersion([], { N8N_LOCAL_VERSION: '2.x' }), /exact version/);
});

test('each version has its own install and homes; Node 24 is shared', () => {
	const one = n8nLine('1.123.81');
	const two = n8nLine('2.40.7');
	assert.equal(one.dir, path.join(LOCAL, 'n8n-1.123.81'));
	assert.equal(two.home, path.join(LOCAL, 'home-2.40.7'));
	assert.notEqual(one.home, two.home);
	assert.equal(two.bin, path.join(LOCAL, 'n8n-2.40.7', 'node_modules', 'n8n', 'bin', 'n8n'));
});

test('each line installs with its overrides, without install scripts, then rebuilds its native modules', () => {
	const two = n8nLine('2.40.7');
	assert.deepEqual(two.overrides, { xlsx: '0.18.5', linkedom: '0.18.14' });
	assert.deepEqual(two.rebuild, ['sqlite3', 'isolated-vm']);
	assert.deepEqual(two.activateArgs('abc'), ['publish:workflow', '--id=abc']);
	const one = n8nLine('1.123.81');
	assert.deepEqual(one.overrides, { xlsx: '0.18.5' });
	assert.deepEqual(one.rebuild, ['sqlite3']);
	assert.deepEqual(one.activateArgs('abc'), ['update:workflow', '--id=abc', '--active=true']);
});
