// node --test test/tools/ : the local n8n's environment avoids n8n's known offline noise, per line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { n8nEnv, n8nLine } from '../../tools/n8n/local.mjs';

const one = n8nLine('1.123.81');
const two = n8nLine('2.40.7');

test('both lines: no community-node catalogue fetch; unverified packages allowed explicitly', () => {
	for (const line of [one, two]) {
		const env = n8nEnv({ line, port: 25678 });
		assert.equal(env.N8N_VERIFIED_PACKAGES_ENABLED, 'false');
		assert.equal(env.N8N_UNVERIFIED_PACKAGES_ENABLED, 'true');
		assert.equal(env.N8N_COMMUNITY_PACKAGES_ENABLED, 'true');
		assert.equal(env.N8N_RUNNERS_BROKER_PORT, '25679');
	}
});

test('1.x: task runners on and env access blocked, so 1.123 prints no deprecation for them', () => {
	const env = n8nEnv({ line: one, port: 25678 });
	assert.equal(env.N8N_RUNNERS_ENABLED, 'true');
	assert.equal(env.N8N_BLOCK_ENV_ACCESS_IN_NODE, 'true');
	assert.equal(env.WEBHOOK_URL, 'http://localhost:25678/');
});

test('2.x: N8N_WEBHOOK_URL instead of WEBHOOK_URL, no N8N_RUNNERS_ENABLED, the warned-about limits set', () => {
	const env = n8nEnv({ line: two, port: 25678 });
	assert.equal(env.WEBHOOK_URL, undefined);
	assert.equal(env.N8N_WEBHOOK_URL, 'http://localhost:25678/');
	assert.equal('N8N_RUNNERS_ENABLED' in env, false);
	assert.equal(env.N8N_RUNNERS_TASK_TIMEOUT, '300');
	assert.equal(env.N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES, String(256 * 1024 * 1024));
	assert.equal(env.N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES, '1000');
	assert.equal(env.N8N_DISABLED_MODULES, 'mcp-registry');
	assert.equal(
		n8nEnv({ line: one }).N8N_DISABLED_MODULES,
		undefined,
		'1.123 has no mcp-registry module',
	);
});

test("a caller's WEBHOOK_URL (queue mode's webhook process) still wins, under the name the line reads", () => {
	const extra = { WEBHOOK_URL: 'http://localhost:34567/' };
	assert.equal(
		n8nEnv({ line: two, port: 25678, extra }).N8N_WEBHOOK_URL,
		'http://localhost:34567/',
	);
	assert.equal(n8nEnv({ line: one, port: 25678, extra }).WEBHOOK_URL, 'http://localhost:34567/');
});
