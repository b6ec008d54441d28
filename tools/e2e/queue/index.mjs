// `npm run e2e -- --queue`: the nodes in n8n's queue mode (issue #10).
//
// PostgreSQL + Redis + n8n main + a webhook process + 2 workers (concurrency 5), each on a free
// loopback port (ports.mjs), in a temp folder; the sandbox as the service; n8n 1.x or 2.x
// (line.mjs: what differs). Then:
//   checks.mjs  the action node on a worker, an upload with Wait for Completion from binary data
//               in `database` mode, the trigger's lifecycle across processes, a restart of main;
//   repeats.mjs examples/scan-events.json: a delivery sent again once it ran, also to a second
//               webhook process: Remove Duplicates passes it once (counted at the sink);
//   once.mjs    examples/deliveries-once-into-postgres.json: copies at once and bursts, each result
//               booked once; a result that returns (failed → completed → failed) ends on failed;
//   poll.mjs    the poll trigger: polls on main, executions on the workers, a restart of main;
//   load.mjs    signed deliveries vs n8n's Webhook node (v2, and v1 as every app trigger takes
//               it on 2.x), 100 uploads in one execution;
//   faults.mjs  a worker killed mid-batch, Redis restarted while idle;
//   mcp.mjs     n8n's MCP Server Trigger with the node's tools, an MCP client at the webhook process.
// Everything started here is stopped by pid at the end, also on failure.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
	DEFAULT_LINE,
	ensureBuild,
	ensureN8n,
	importCredential,
	log,
	n8nSync,
	startSandbox,
	stopChild,
} from '../../n8n/local.mjs';
import { startPostgres, startRedis } from './services.mjs';
import { portAllocator } from './ports.mjs';
import { createProcesses } from './processes.mjs';
import { N8nRest } from '../../n8n/rest.mjs';
import {
	ACTION_WORKFLOW,
	BATCH_FAULT_WORKFLOW,
	BATCH_LOAD_WORKFLOW,
	PLAIN_V1_WORKFLOW,
	PLAIN_WORKFLOW,
	POLL_WORKFLOW,
	TRIGGER_WORKFLOW,
	UPLOAD_WORKFLOW,
} from './workflows.mjs';
import { runChecks } from './checks.mjs';
import { runPollChecks } from './poll.mjs';
import { runLoad } from './load.mjs';
import { runFaults } from './faults.mjs';
import { runRepeatChecks } from './repeats.mjs';
import { runOnceChecks } from './once.mjs';
import { runMcpChecks } from './mcp.mjs';

/** One `n8n import:workflow --separate` for all (each n8n CLI start costs seconds). */
function importWorkflows(workflows, env) {
	const dir = path.join(env.N8N_USER_FOLDER, 'import', 'queue-workflows');
	mkdirSync(dir, { recursive: true });
	for (const wf of workflows)
		writeFileSync(path.join(dir, `${wf.id}.json`), JSON.stringify(wf, null, 2) + '\n');
	const r = n8nSync(['import:workflow', '--separate', `--input=${dir}`], { env });
	if (r.status !== 0 || /An error occurred/i.test(r.stdout + r.stderr))
		throw new Error(`n8n import:workflow failed (exit ${r.status}): ${r.stdout}${r.stderr}`);
}

/**
 * Runs the queue-mode e2e on n8n `line` (n8nLine(); default: the default line); `check(name, ok,
 * detail)` records a result (the caller's). Returns the figures printed at the end. `only` limits
 * the parts: checks, mcp, poll, load, faults (= kill, redis).
 */
/**
 * @param {{ check: (name: string, ok: boolean, detail?: string) => boolean, verbose?: boolean, only?: string[], line?: ReturnType<typeof import('../../n8n/lines.mjs').n8nLine> }} options
 */
export async function runQueueE2e({ check, verbose = false, only, line = DEFAULT_LINE }) {
	const parts = new Set(
		only?.length ? only : ['checks', 'repeats', 'once', 'mcp', 'poll', 'load', 'faults'],
	);
	if (parts.has('faults')) parts.add('kill').add('redis');
	const timings = {};
	const figures = {};
	const time = async (name, fn) => {
		const t = Date.now();
		try {
			return await fn();
		} finally {
			timings[name] = Date.now() - t;
		}
	};
	const tmp = mkdtempSync(path.join(os.tmpdir(), 'n8n-queue-e2e-'));
	const nextPort = portAllocator();
	const ctx = { check, verbose, figures, tmp, line, nextPort };
	const stops = [];
	try {
		await time('setup', async () => {
			ensureBuild();
			ensureN8n(line);
			ctx.pg = await startPostgres(tmp, { port: await nextPort(), n8nDir: line.dir });
			stops.push(() => ctx.pg.stop());
			ctx.redis = await startRedis(tmp, { port: await nextPort() });
			stops.push(() => ctx.redis.stop());
			// Generous limits: the load test uploads a few hundred documents.
			ctx.sandbox = await startSandbox({
				port: await nextPort(),
				quiet: true,
				echo: verbose,
				extraArgs: ['--processing-delay-ms', '50', '--rate-limit', '100000'],
			});
			stops.push(() => stopChild(ctx.sandbox.child));
			ctx.origin = new URL(ctx.sandbox.baseUrl).origin;
			log(
				`queue e2e in ${tmp}: postgres :${ctx.pg.port}, redis :${ctx.redis.port}, sandbox ${ctx.sandbox.baseUrl}`,
			);

			ctx.procs = await createProcesses({
				tmp,
				line,
				pg: ctx.pg,
				redis: ctx.redis,
				nextPort,
				workers: 2,
				concurrency: 5,
			});
			stops.push(() => Promise.all(ctx.procs.all().map((p) => p.stop())));
			// The CLI imports run the migrations on the empty database.
			const env = ctx.procs.main.env;
			importCredential({ baseUrl: ctx.sandbox.baseUrl, env });
			importWorkflows(
				[
					ACTION_WORKFLOW,
					UPLOAD_WORKFLOW,
					TRIGGER_WORKFLOW,
					PLAIN_WORKFLOW,
					PLAIN_V1_WORKFLOW,
					POLL_WORKFLOW,
					BATCH_LOAD_WORKFLOW,
					BATCH_FAULT_WORKFLOW,
				],
				env,
			);

			const { main, webhook, workers } = ctx.procs;
			main.start(verbose);
			await main.waitReady();
			for (const p of [webhook, ...workers]) p.start(verbose);
			await Promise.all([webhook, ...workers].map((p) => p.waitReady()));
			ctx.rest = new N8nRest(main.url);
			await ctx.rest.signIn();
		});
		check(
			`queue mode is up (n8n ${line.version}): postgres, redis, main, webhook process, 2 workers`,
			true,
			`${(timings.setup / 1000).toFixed(1)} s; main :${ctx.procs.main.port}, webhook :${ctx.procs.webhook.port}, workers :${ctx.procs.workers.map((w) => w.port).join(', :')}`,
		);

		// Each part on its own: one that breaks off is a FAIL, and the next still runs.
		const part = async (name, fn) => {
			try {
				await time(name, fn);
			} catch (err) {
				check(`queue e2e: the ${name} part ran to the end`, false, err.stack ?? String(err));
			}
		};
		if (parts.has('checks')) await part('checks', () => runChecks(ctx));
		if (parts.has('repeats')) await part('repeats', () => runRepeatChecks(ctx));
		if (parts.has('once')) await part('once', () => runOnceChecks(ctx));
		if (parts.has('mcp')) await part('mcp', () => runMcpChecks(ctx));
		if (parts.has('poll')) await part('poll', () => runPollChecks(ctx));
		if (parts.has('load')) await part('load', () => runLoad(ctx));
		if (parts.has('kill') || parts.has('redis')) await part('faults', () => runFaults(ctx, parts));
	} catch (err) {
		check('queue e2e ran to the end', false, err.stack ?? String(err));
		for (const p of ctx.procs?.all() ?? [])
			if (p.lines.length)
				console.log(
					p.lines
						.slice(-15)
						.map((l) => `[${p.name}] ${l}`)
						.join('\n'),
				);
	} finally {
		const t = Date.now();
		// The n8n processes first (they hold connections to postgres and redis), then the rest.
		for (const stop of stops.reverse()) {
			try {
				await stop();
			} catch (err) {
				console.log(`stopping: ${err.message}`);
			}
		}
		timings.teardown = Date.now() - t;
		rmSync(tmp, { recursive: true, force: true });
	}
	console.log('\nqueue e2e figures:');
	for (const [k, v] of Object.entries(figures)) console.log(`  ${k}: ${v}`);
	console.log(
		`queue e2e runtimes: ${Object.entries(timings)
			.map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
			.join(', ')}`,
	);
	return { figures, timings };
}
