// `npm start`: the local API sandbox plus a real n8n with this package's nodes, the credential
// "Document Scanning sandbox" and the example workflows loaded. See the README, "Real n8n".
//
//   npm start                     sandbox on :8787 + n8n 1.123.81 on :5678 (the first start installs n8n: FIRST_RUN in constants.mjs)
//   npm start -- --n8n 2.40.7     the same on another n8n line (own install and home per version)
//   npm start -- --sandbox-only   only the sandbox (same as npm run start:sandbox)
//   npm start -- --no-owner       do not create the local owner account (n8n asks for one on first open)
//
// Environment: N8N_LOCAL_VERSION (1.123.81; --n8n wins), N8N_PORT (5678; the task broker of n8n 2.x
// takes N8N_PORT + 1), SANDBOX_PORT (8787), N8N_OWNER_EMAIL / N8N_OWNER_PASSWORD.
// The example "Invoices → line items → ERP" reads the sample PDFs start writes to .n8n-local/files/invoices/.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import path from 'node:path';
import {
	DEFAULT_OWNER,
	INVOICES_DIR,
	ROOT,
	SANDBOX_KEY,
	CREDENTIAL,
	DEFAULT_N8N_VERSION,
	TESTED_N8N_VERSIONS,
	ensureBuild,
	ensureN8n,
	ensureOwner,
	importCredential,
	importExamples,
	installPackage,
	log,
	n8nEnv,
	n8nLine,
	n8nSpawn,
	pickVersion,
	portIsFree,
	prefixOutput,
	startSandbox,
	stopChild,
	waitForN8n,
} from './local.mjs';
import { writeSampleInvoices } from './sample-invoices.mjs';
import { startBanner } from './start-banner.mjs';

const { values: flags } = parseArgs({
	options: {
		'sandbox-only': { type: 'boolean' },
		'no-owner': { type: 'boolean' },
		'quiet-sandbox': { type: 'boolean' },
		n8n: { type: 'string' },
		help: { type: 'boolean' },
	},
	strict: true,
});

if (flags.help) {
	console.log(
		[
			'npm start [-- options]',
			'  --n8n <version>  the n8n line: 1.123.81 (default) or 2.40.7 (each has its own install and home)',
			'  --sandbox-only   only the API sandbox (npm run start:sandbox)',
			'  --no-owner       do not set up the local owner account automatically',
			'  --quiet-sandbox  no per-request log from the sandbox',
			'Environment: N8N_LOCAL_VERSION, N8N_PORT (5678), SANDBOX_PORT (8787), N8N_OWNER_EMAIL, N8N_OWNER_PASSWORD',
		].join('\n'),
	);
	process.exit(0);
}

if (flags['sandbox-only']) {
	const child = spawn(
		process.execPath,
		[
			path.join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'),
			'--transpile-only',
			'sandbox/cli.ts',
			'--allow-insecure-webhooks',
		],
		{ cwd: ROOT, stdio: 'inherit' },
	);
	for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM']))
		process.on(sig, () => child.kill(sig));
	child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
} else {
	await main();
}

async function main() {
	const startedAt = Date.now();
	const line = n8nLine(pickVersion(flags.n8n ? ['--n8n', flags.n8n] : []).version);
	const n8nPort = Number(process.env.N8N_PORT) || 5678;
	const brokerPort = n8nPort + 1;
	const sandboxPort = Number(process.env.SANDBOX_PORT) || 8787;
	const ports = [
		['n8n (N8N_PORT)', n8nPort],
		['sandbox (SANDBOX_PORT)', sandboxPort],
	];
	ports.push(["n8n's task broker (N8N_PORT + 1)", brokerPort]);
	for (const [name, port] of ports) {
		if (!(await portIsFree(port))) {
			console.error(
				`Port ${port} for ${name} is in use. Stop what uses it, or set ${String(name).match(/\((\w+)/)?.[1]}=<another port>.`,
			);
			process.exit(1);
		}
	}

	ensureBuild();
	ensureN8n(line);
	installPackage(line.home, line);
	const invoices = writeSampleInvoices(INVOICES_DIR);
	const env = n8nEnv({ line, home: line.home, port: n8nPort, brokerPort });
	const n8nUrl = `http://localhost:${n8nPort}/`;

	let sandbox;
	let n8n;
	let stopping = false;
	const shutdown = async (code) => {
		if (stopping) return;
		stopping = true;
		log('stopping n8n and the sandbox ...');
		await Promise.all([stopChild(n8n), stopChild(sandbox?.child)]);
		process.exit(code);
	};
	let signals = 0;
	for (const sig of ['SIGINT', 'SIGTERM']) {
		process.on(sig, () => {
			if (++signals > 1) {
				n8n?.kill('SIGKILL');
				sandbox?.child.kill('SIGKILL');
				process.exit(1);
			}
			void shutdown(0);
		});
	}

	try {
		sandbox = await startSandbox({ port: sandboxPort, quiet: flags['quiet-sandbox'] });
		sandbox.child.on('exit', (code) => {
			if (!stopping) {
				log(`the sandbox exited (${code}); stopping`);
				void shutdown(1);
			}
		});

		log('importing the credential and the example workflows into n8n ...');
		importCredential({ baseUrl: sandbox.baseUrl, env });
		const workflows = importExamples({ env, sandboxOrigin: new URL(sandbox.baseUrl).origin });

		log(`starting n8n on ${n8nUrl} ...`);
		n8n = n8nSpawn(['start'], { env });
		prefixOutput(n8n.stdout, '[n8n] ');
		prefixOutput(n8n.stderr, '[n8n] ', process.stderr);
		n8n.on('exit', (code, signal) => {
			if (!stopping) {
				log(`n8n exited (${code ?? signal}); stopping`);
				void shutdown(1);
			}
		});
		await waitForN8n(n8nUrl, { child: n8n });
		const ownerCreated = flags['no-owner'] ? false : await ensureOwner(n8nUrl);

		console.log(
			startBanner({
				version: line.version,
				otherVersion: TESTED_N8N_VERSIONS.find((v) => v !== line.version) ?? DEFAULT_N8N_VERSION,
				readySeconds: Math.round((Date.now() - startedAt) / 1000),
				n8nUrl,
				owner: { ...DEFAULT_OWNER, skipped: Boolean(flags['no-owner']), created: ownerCreated },
				workflows,
				credential: CREDENTIAL,
				sandboxBaseUrl: sandbox.baseUrl,
				apiKey: SANDBOX_KEY,
				invoices,
				invoicesDir: INVOICES_DIR,
				root: ROOT,
			}).join('\n'),
		);
	} catch (err) {
		console.error(`npm start failed: ${err.message}`);
		await shutdown(1);
	}
}
