// PostgreSQL and Redis for the queue-mode e2e: each on a free loopback port of its own, data in a
// temp folder, stopped by pid. PostgreSQL 15 comes from Debian's postgresql-15 package, Redis 7
// from `apt-get install -y redis-server` (see the README, "Scaling out").
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { N8N_DIR, freePort, prefixOutput, stopChild } from '../../n8n/local.mjs';

/** Where initdb and pg_ctl are: $PG_BIN, else the newest /usr/lib/postgresql/<n>/bin. */
export function postgresBin() {
	if (process.env.PG_BIN) return process.env.PG_BIN;
	const root = '/usr/lib/postgresql';
	const versions = existsSync(root)
		? readdirSync(root)
				.filter((v) => /^\d+$/.test(v))
				.sort((a, b) => Number(b) - Number(a))
		: [];
	for (const v of versions)
		if (existsSync(path.join(root, v, 'bin', 'initdb'))) return path.join(root, v, 'bin');
	throw new Error(
		'PostgreSQL not found: install postgresql (Debian: apt-get install -y postgresql) or set PG_BIN',
	);
}

export function redisBin() {
	const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
	const bin = r.stdout.trim();
	if (!bin) throw new Error('redis-server not found: apt-get install -y redis-server');
	return bin;
}

/** initdb/pg_ctl refuse to run as root: as root they run as the `postgres` user. */
function asPostgres(bin, args) {
	const asRoot = process.getuid?.() === 0;
	const cmd = asRoot ? 'runuser' : bin;
	const full = asRoot ? ['-u', 'postgres', '--', bin, ...args] : args;
	const r = spawnSync(cmd, full, { encoding: 'utf8', timeout: 120_000 });
	if (r.error) throw r.error;
	if (r.status !== 0)
		throw new Error(
			`${path.basename(bin)} ${args.join(' ')} exited ${r.status}: ${r.stderr || r.stdout}`,
		);
	return r;
}

function giveToPostgres(dir) {
	if (process.getuid?.() !== 0) return;
	const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
	const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
	if (r.status !== 0)
		throw new Error(
			"running as root needs a `postgres` user (Debian's postgresql package creates it)",
		);
	chownSync(dir, Number(r.stdout.trim()), Number(g.stdout.trim()));
}

/**
 * initdb (--auth=trust) + pg_ctl start on 127.0.0.1:<free port>, socket in the run's folder.
 * Returns { port, host, user, database, pid, stop() }.
 */
/** @param {string} tmp @param {{ port?: number, n8nDir?: string }} [options] */
export async function startPostgres(tmp, { port: wanted, n8nDir = N8N_DIR } = {}) {
	const bin = postgresBin();
	const dir = path.join(tmp, 'pg');
	mkdirSync(dir, { recursive: true });
	giveToPostgres(tmp);
	giveToPostgres(dir);
	const data = path.join(dir, 'data');
	asPostgres(path.join(bin, 'initdb'), [
		'-D',
		data,
		'--auth=trust',
		'-U',
		'postgres',
		'-E',
		'UTF8',
		'--no-sync',
	]);
	const port = wanted ?? (await freePort());
	const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
	asPostgres(path.join(bin, 'pg_ctl'), [
		'-D',
		data,
		'-o',
		opts,
		'-l',
		path.join(dir, 'log'),
		'-w',
		'-t',
		'60',
		'start',
	]);
	const pid = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
	return {
		host: '127.0.0.1',
		port,
		user: 'postgres',
		database: 'postgres',
		pid,
		n8nDir,
		log: path.join(dir, 'log'),
		async stop() {
			try {
				asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
			} catch {
				try {
					process.kill(pid, 'SIGQUIT');
				} catch {
					// already gone
				}
			}
		},
	};
}

/** A client of the run's database through n8n's own `pg` (no dependency of this repository). */
export async function pgClient(pg) {
	const require = createRequire(path.join(pg.n8nDir ?? N8N_DIR, 'package.json'));
	// n8n's own `pg`, found at run time: no types for it here.
	const { Client } = /** @type {any} */ (require('pg'));
	const client = new Client({ host: pg.host, port: pg.port, user: pg.user, database: pg.database });
	await client.connect();
	return client;
}

/** redis-server on 127.0.0.1:<port>, nothing saved to disk. restart() keeps the port. */
/** @param {string} tmp @param {{ echo?: NodeJS.WritableStream | null, port?: number }} [options] */
export async function startRedis(tmp, { echo = null, port: wanted } = {}) {
	const bin = redisBin();
	const dir = path.join(tmp, 'redis');
	mkdirSync(dir, { recursive: true });
	const port = wanted ?? (await freePort());
	const state = { child: undefined };
	async function start() {
		const child = spawn(
			bin,
			[
				'--port',
				String(port),
				'--bind',
				'127.0.0.1',
				'--save',
				'',
				'--appendonly',
				'no',
				'--dir',
				dir,
			],
			{
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		state.child = child;
		await new Promise((resolve, reject) => {
			const timer = setTimeout(
				() => reject(new Error('redis-server did not start within 20 s')),
				20_000,
			);
			prefixOutput(child.stdout, '[redis] ', echo, (line) => {
				if (/Ready to accept connections/i.test(line)) {
					clearTimeout(timer);
					resolve();
				}
			});
			prefixOutput(child.stderr, '[redis] ', process.stderr);
			child.once('exit', (code) => {
				clearTimeout(timer);
				reject(new Error(`redis-server exited (${code}) before it was ready`));
			});
		});
	}
	await start();
	return {
		host: '127.0.0.1',
		port,
		get pid() {
			return state.child?.pid;
		},
		async restart() {
			await stopChild(state.child, 5_000);
			await start();
		},
		stop: () => stopChild(state.child, 5_000),
	};
}
