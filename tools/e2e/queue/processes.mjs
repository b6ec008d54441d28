// The n8n processes of queue mode: main (editor, REST, activations), one webhook process
// (production webhooks) and workers (executions), all sharing PostgreSQL and Redis (Bull).
// Each process has a home folder of its own (no shared disk: binary data goes through the
// database), the same encryption key, its own loopback port and (2.x) its own task broker port.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { installPackage, n8nEnv, n8nSpawn, prefixOutput, stopChild } from '../../n8n/local.mjs';
import { restReady } from '../../n8n/rest.mjs';
import { lineSettings } from './line.mjs';

/** The environment every queue-mode n8n process shares (issue #10's recipe, per n8n line). */
export function queueEnv({ line, home, port, brokerPort, pg, redis, webhookPort, extra = {} }) {
	const env = n8nEnv({
		line,
		home,
		port,
		brokerPort,
		extra: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: pg.host,
			DB_POSTGRESDB_PORT: String(pg.port),
			DB_POSTGRESDB_USER: pg.user,
			DB_POSTGRESDB_PASSWORD: '',
			DB_POSTGRESDB_DATABASE: pg.database,
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: redis.host,
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			// n8n's default PostgreSQL pool is 2 connections per process; each delivery makes several
			// queries, so 30 deliveries in flight would mostly wait for a connection.
			DB_POSTGRESDB_POOL_SIZE: process.env.QUEUE_E2E_DB_POOL || lineSettings(line).dbPool,
			N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL || 'info',
			...lineSettings(line).env({ webhookUrl: `http://localhost:${webhookPort}/` }),
			...extra,
		},
	});
	for (const name of lineSettings(line).unset) delete env[name];
	return env;
}

/**
 * One n8n process: `role` is main | webhook | worker. Its log lines are kept (for checks like
 * "which worker ran execution N") and echoed with a prefix when `echo` is set.
 */
export class N8nProcess {
	constructor({ name, role, home, port, env, args, line }) {
		/** @type {string} */
		this.name = name;
		/** @type {'main' | 'webhook' | 'worker'} */
		this.role = role;
		this.home = home;
		/** @type {number} */
		this.port = port;
		this.env = env;
		/** @type {string[]} */
		this.args = args;
		this.line = line;
		this.lines = [];
		this.child = undefined;
	}

	get url() {
		return `http://localhost:${this.port}/`;
	}

	start(echo) {
		this.child = n8nSpawn(this.args, { env: this.env });
		const keep = (line) => {
			this.lines.push(line);
			if (this.lines.length > 20_000) this.lines.splice(0, 5_000);
		};
		prefixOutput(this.child.stdout, `[${this.name}] `, echo ? process.stdout : null, keep);
		prefixOutput(this.child.stderr, `[${this.name}] `, echo ? process.stderr : null, keep);
		return this;
	}

	get pid() {
		return this.child?.pid;
	}

	get running() {
		return Boolean(this.child) && this.child.exitCode === null && this.child.signalCode === null;
	}

	/** /healthz/readiness: 200 once the database is connected and migrated (main, webhook, worker). */
	async waitReady(timeoutMs = 240_000) {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			if (!this.running)
				throw new Error(
					`${this.name} exited (${this.child?.exitCode ?? this.child?.signalCode}) before it was ready:\n${this.lines.slice(-25).join('\n')}`,
				);
			try {
				const res = await fetch(new URL('healthz/readiness', this.url), {
					signal: AbortSignal.timeout(2000),
				});
				if (res.ok && (this.role !== 'main' || (await this.restReady()))) return;
			} catch {
				// not up yet: try again
			}
			await new Promise((r) => setTimeout(r, 500));
		}
		throw new Error(
			`${this.name} was not ready on ${this.url} within ${timeoutMs / 1000} s:\n${this.lines.slice(-25).join('\n')}`,
		);
	}

	restReady() {
		return restReady(this.url);
	}

	/** Whether a worker's log says it started the given execution. */
	ranExecution(executionId) {
		return this.lines.some((l) => l.includes(`Worker started execution ${executionId} `));
	}

	finishedExecution(executionId) {
		return this.lines.some((l) => l.includes(`Worker finished execution ${executionId} `));
	}

	stop(graceMs = 10_000) {
		return stopChild(this.child, graceMs);
	}

	kill() {
		if (this.running) this.child.kill('SIGKILL');
		return new Promise((resolve) =>
			this.running ? this.child.once('exit', () => resolve()) : resolve(),
		);
	}
}

/** A home folder with this package installed as a community package (for the run's n8n line). */
function homeFor(tmp, name, line) {
	const home = path.join(tmp, 'homes', name);
	mkdirSync(home, { recursive: true });
	installPackage(home, line);
	return home;
}

/**
 * Creates (does not start) main, webhook and `workers` workers of n8n `line`; `nextPort` hands out
 * the ports (ports.mjs): each process's own and its task broker's.
 */
export async function createProcesses({
	tmp,
	line,
	pg,
	redis,
	nextPort,
	workers = 2,
	concurrency = 5,
}) {
	const webhookPort = await nextPort();
	const mainPort = await nextPort();
	const make = async (name, role, port, args, extra = {}) => {
		const home = homeFor(tmp, name, line);
		const brokerPort = await nextPort();
		return new N8nProcess({
			name,
			role,
			home,
			port,
			line,
			args,
			env: queueEnv({ line, home, port, brokerPort, pg, redis, webhookPort, extra }),
		});
	};
	const main = await make('main', 'main', mainPort, ['start'], {
		N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
	});
	const webhook = await make('webhook', 'webhook', webhookPort, ['webhook']);
	const list = [];
	for (let i = 1; i <= workers; i++) {
		const port = await nextPort();
		list.push(
			await make(`worker${i}`, 'worker', port, ['worker', `--concurrency=${concurrency}`], {
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(port),
			}),
		);
	}
	const procs = {
		main,
		webhook,
		workers: list,
		/** The current processes (restarts and replacements included), for stopping them all. */
		all: () => [procs.main, procs.webhook, ...procs.workers],
	};
	return procs;
}

/**
 * A new process like `proc` (same role, port and settings) with a home folder of its own, as a
 * fresh container would start. A killed n8n restarted on its old home finds its crash journal
 * ("Last session crashed"); n8n 1.123's worker then exits at start ("Cannot read properties of
 * undefined (reading 'Start')") after a manual run was killed on it.
 */
export function replacement(proc, tmp, name) {
	const home = homeFor(tmp, name, proc.line);
	return new N8nProcess({
		name,
		role: proc.role,
		home,
		port: proc.port,
		line: proc.line,
		env: { ...proc.env, N8N_USER_FOLDER: home },
		args: proc.args,
	});
}

/** Another webhook process beside `proc` (as behind a load balancer), on ports of its own; not started. */
export async function besideOf(proc, tmp, name, nextPort) {
	const other = replacement(proc, tmp, name);
	other.port = await nextPort();
	other.env = {
		...other.env,
		N8N_PORT: String(other.port),
		N8N_RUNNERS_BROKER_PORT: String(await nextPort()),
	};
	return other;
}

/** Same process settings, fresh child: for restarts and for replacing a killed worker. */
export function respawn(proc) {
	return new N8nProcess({
		name: proc.name,
		role: proc.role,
		home: proc.home,
		port: proc.port,
		line: proc.line,
		env: proc.env,
		args: proc.args,
	});
}
