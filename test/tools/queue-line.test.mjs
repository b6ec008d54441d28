// node --test test/tools/ : the queue-mode e2e's per-line environment and its ports.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { n8nLine } from '../../tools/n8n/lines.mjs';
import { queueEnv } from '../../tools/e2e/queue/processes.mjs';
import { portAllocator, portBlock } from '../../tools/e2e/queue/ports.mjs';

const pg = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' };
const redis = { host: '127.0.0.1', port: 6379 };
const envOf = (version, brokerPort = 26010) =>
	queueEnv({
		line: n8nLine(version),
		home: '/tmp/x',
		port: 26001,
		brokerPort,
		pg,
		redis,
		webhookPort: 26002,
	});

test('1.x: WEBHOOK_URL, database binary mode chosen explicitly, no task runners', () => {
	const env = envOf('1.123.81');
	assert.equal(env.WEBHOOK_URL, 'http://localhost:26002/');
	assert.equal(env.N8N_WEBHOOK_URL, undefined);
	assert.equal(env.N8N_DEFAULT_BINARY_DATA_MODE, 'database');
	assert.equal(env.N8N_RUNNERS_ENABLED, 'false');
	assert.equal(env.OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS, 'true');
	assert.equal(env.EXECUTIONS_MODE, 'queue');
	assert.equal(env.DB_POSTGRESDB_POOL_SIZE, process.env.QUEUE_E2E_DB_POOL || '10');
});

test('2.x: N8N_WEBHOOK_URL only, n8n’s default binary mode, internal task runners on a broker port of each process’s own', () => {
	const env = envOf('2.40.7');
	assert.equal(env.N8N_WEBHOOK_URL, 'http://localhost:26002/');
	assert.equal(env.WEBHOOK_URL, undefined);
	for (const gone of [
		'N8N_DEFAULT_BINARY_DATA_MODE',
		'N8N_AVAILABLE_BINARY_DATA_MODES',
		'N8N_RUNNERS_ENABLED',
	])
		assert.equal(env[gone], undefined, gone);
	assert.equal(env.N8N_RUNNERS_MODE, 'internal');
	assert.equal(env.N8N_RUNNERS_BROKER_PORT, '26010');
	assert.equal(envOf('2.40.7', 26011).N8N_RUNNERS_BROKER_PORT, '26011');
	assert.equal(env.OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS, 'true');
	assert.equal(env.N8N_LOCAL_VERSION, '2.40.7');
	assert.equal(env.DB_POSTGRESDB_POOL_SIZE, process.env.QUEUE_E2E_DB_POOL || '20');
});

test('QUEUE_E2E_PORTS: a block or nothing; malformed values are refused', () => {
	assert.equal(portBlock(undefined), undefined);
	assert.deepEqual(portBlock('26000-26999'), { from: 26000, to: 26999 });
	for (const bad of ['26000', '26999-26000', '80-90', 'a-b', '26000-70000'])
		assert.throws(() => portBlock(bad), /QUEUE_E2E_PORTS/, bad);
});

test('the allocator stays in its block, never repeats a port, and skips one in use', async () => {
	const busy = net.createServer();
	const busyPort = await new Promise((resolve) =>
		busy.listen(0, '127.0.0.1', () => resolve(busy.address().port)),
	);
	try {
		const next = portAllocator({ from: busyPort, to: busyPort + 3 });
		const got = [await next(), await next()];
		assert.ok(!got.includes(busyPort), `got the busy port ${busyPort}`);
		assert.equal(new Set(got).size, 2);
		for (const p of got) assert.ok(p > busyPort && p <= busyPort + 3);
		const tiny = portAllocator({ from: busyPort, to: busyPort });
		await assert.rejects(tiny(), /no free port left/);
	} finally {
		busy.close();
	}
});
