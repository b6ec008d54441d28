// `npm run e2e`: proves the nodes work inside a real n8n (the one `npm start` uses).
//
// 1. builds if needed, installs n8n if missing (.n8n-local/, see the README, "Real n8n");
// 2. a fresh n8n home (.n8n-local/e2e-home) with this package linked as a community package,
//    the sandbox on a free port, the credential "Document Scanning sandbox" imported;
// 3. `n8n execute` of a Manual Trigger -> Account: Get -> Template: Get Many workflow, checked
//    against what the sandbox itself answers;
// 4. `n8n start` on a free port: the node and credential types are listed by n8n, the example
//    "scan events" workflow (Document Scanning Trigger) is active, registers its webhook in the
//    sandbox, and a real upload's signed scan.completed delivery runs it.
// Prints PASS/FAIL lines and `e2e: N passed, M failed`; exits 1 on any failure.
import { rmSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import {
	CREDENTIAL,
	LOCAL,
	SANDBOX_KEY,
	PACKAGE_NAME,
	ensureBuild,
	ensureN8n,
	ensureOwner,
	freePort,
	importCredential,
	importExamples,
	importWorkflow,
	installPackage,
	log,
	login,
	n8nEnv,
	n8nSpawn,
	n8nSync,
	prefixOutput,
	startSandbox,
	stopChild,
	waitForN8n,
} from './n8n-local.mjs';
import { checkPollTrigger } from './e2e-checks/poll-trigger.mjs';
import { runQueueE2e } from './e2e-queue/index.mjs';

const started = Date.now();
const results = [];
const verbose = process.argv.includes('--verbose');
// `--queue`: queue mode instead (scripts/e2e-queue/); `--queue-parts=checks,load,faults` picks parts.
const queue = process.argv.includes('--queue');
const queueParts = process.argv.find((a) => a.startsWith('--queue-parts='))?.split('=')[1].split(',');
let sandbox;
let n8n;
const n8nLog = [];

function check(name, ok, detail = '') {
	results.push({ name, ok });
	console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
	return ok;
}

const E2E_WORKFLOW = {
	id: 'docscanE2eTest01',
	name: 'e2e: account and templates',
	active: false,
	nodes: [
		{
			parameters: {},
			id: 'e2e00000-0000-4000-8000-000000000001',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
		},
		{
			parameters: { resource: 'account', operation: 'get' },
			id: 'e2e00000-0000-4000-8000-000000000002',
			name: 'Balance',
			type: `${PACKAGE_NAME}.documentScanning`,
			typeVersion: 1,
			position: [220, 0],
			credentials: { documentScanningApi: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
		},
		{
			parameters: { resource: 'template', operation: 'getAll', returnAll: true },
			id: 'e2e00000-0000-4000-8000-000000000003',
			name: 'Templates',
			type: `${PACKAGE_NAME}.documentScanning`,
			typeVersion: 1,
			position: [440, 0],
			credentials: { documentScanningApi: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
		},
	],
	connections: {
		Start: { main: [[{ node: 'Balance', type: 'main', index: 0 }]] },
		Balance: { main: [[{ node: 'Templates', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

/** The JSON document `n8n execute --rawOutput` prints (log lines may surround it). */
function parseRunOutput(stdout) {
	const start = stdout.startsWith('{') ? 0 : stdout.indexOf('\n{') + 1;
	const end = stdout.lastIndexOf('\n}');
	if (start <= 0 && !stdout.startsWith('{')) throw new Error('no JSON in the output');
	return JSON.parse(stdout.slice(start, end + 2));
}

function nodeItems(run, nodeName) {
	const runs = run?.data?.resultData?.runData?.[nodeName];
	return (runs?.[0]?.data?.main?.[0] ?? []).map((item) => item.json);
}

async function api(baseUrl, pathname, init = {}) {
	const res = await fetch(`${baseUrl}${pathname}`, {
		...init,
		headers: { authorization: `Bearer ${SANDBOX_KEY}`, ...(init.headers ?? {}) },
	});
	const text = await res.text();
	return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const unwrap = (body) => (body && typeof body === 'object' && 'data' in body ? body.data : body);

async function main() {
	ensureBuild();
	ensureN8n();

	const home = path.join(LOCAL, 'e2e-home');
	rmSync(home, { recursive: true, force: true });
	mkdirSync(home, { recursive: true });
	installPackage(home);
	const port = await freePort();
	const env = n8nEnv({ home, port });
	const n8nUrl = `http://localhost:${port}/`;

	sandbox = await startSandbox({ port: 0, quiet: true, echo: verbose, extraArgs: ['--processing-delay-ms', '50'] });
	log(`sandbox on ${sandbox.baseUrl}, n8n home ${path.relative(process.cwd(), home)}, n8n port ${port}`);
	const origin = new URL(sandbox.baseUrl).origin;

	// ---- imports (the first n8n command also creates the database) --------------------------
	let t = Date.now();
	try {
		importCredential({ baseUrl: sandbox.baseUrl, env });
		check('n8n import:credentials (documentScanningApi, id 1)', true, `${Date.now() - t} ms`);
	} catch (err) {
		check('n8n import:credentials (documentScanningApi, id 1)', false, err.message);
	}
	t = Date.now();
	try {
		importWorkflow(E2E_WORKFLOW, { env });
		const names = importExamples({ env });
		check('n8n import:workflow (e2e workflow + examples/*.json)', true, `${names.length + 1} workflows, ${Date.now() - t} ms`);
	} catch (err) {
		check('n8n import:workflow (e2e workflow + examples/*.json)', false, err.message);
	}

	// ---- n8n execute: Manual Trigger -> Account: Get -> Template: Get Many ------------------
	await fetch(`${origin}/__sandbox/requests`, { method: 'DELETE' });
	t = Date.now();
	const exec = n8nSync(['execute', `--id=${E2E_WORKFLOW.id}`, '--rawOutput'], { env, timeoutMs: 180_000 });
	let run;
	try {
		run = parseRunOutput(exec.stdout);
	} catch (err) {
		console.log(exec.stdout.slice(-3000));
		console.log(exec.stderr.slice(-3000));
	}
	const execError = run?.data?.resultData?.error;
	check(
		'n8n execute runs the workflow without error',
		exec.status === 0 && run !== undefined && !execError,
		`exit ${exec.status}, ${Date.now() - t} ms${execError ? `, error: ${execError.message}` : ''}`,
	);

	// What n8n sent (read before this script makes its own requests).
	const requests = unwrap(await (await fetch(`${origin}/__sandbox/requests`)).json()) ?? [];
	const seen = requests.map((r) => `${r.method} ${r.path} ${r.status} (${r.authScheme})`);
	check(
		'the sandbox got the nodes’ requests, authenticated with the credential',
		requests.length >= 2 &&
			requests.some((r) => r.path === '/account' && r.status === 200) &&
			requests.some((r) => r.path === '/templates' && r.status === 200) &&
			requests.every((r) => r.status === 200),
		seen.join(', '),
	);

	const account = unwrap((await api(sandbox.baseUrl, '/account')).body);
	const balance = nodeItems(run, 'Balance');
	check(
		'Account → Get returns the balance (remaining_scans) from the sandbox',
		balance.length === 1 && typeof balance[0].remaining_scans === 'number' && balance[0].remaining_scans === account.remaining_scans,
		JSON.stringify(balance[0] ?? null),
	);

	const sandboxTemplates = unwrap((await api(sandbox.baseUrl, '/templates?per_page=100')).body);
	const expected = sandboxTemplates.map((tpl) => tpl.name).sort();
	const got = nodeItems(run, 'Templates').map((tpl) => tpl.name).sort();
	check(
		'Template → Get Many returns the sandbox templates',
		got.length > 0 && JSON.stringify(got) === JSON.stringify(expected),
		`${got.join(', ')}`,
	);

	// ---- n8n start: types loaded, trigger example active, delivery runs it -------------------
	const activate = n8nSync(['update:workflow', '--id=docscanExample03', '--active=true'], { env });
	check('n8n update:workflow activates the example "scan events" workflow', activate.status === 0, `exit ${activate.status}`);

	t = Date.now();
	n8n = n8nSpawn(['start'], { env });
	prefixOutput(n8n.stdout, '[n8n] ', verbose ? process.stdout : null, (l) => n8nLog.push(l));
	prefixOutput(n8n.stderr, '[n8n] ', verbose ? process.stderr : null, (l) => n8nLog.push(l));
	try {
		await waitForN8n(n8nUrl, { child: n8n });
		check('n8n start is ready', true, `${Date.now() - t} ms`);
	} catch (err) {
		check('n8n start is ready', false, err.message);
		console.log(n8nLog.slice(-40).join('\n'));
		return;
	}

	await ensureOwner(n8nUrl);
	const cookie = await login(n8nUrl);
	const nodeTypes = await (await fetch(new URL('types/nodes.json', n8nUrl), { headers: { cookie } })).json();
	const credTypes = await (await fetch(new URL('types/credentials.json', n8nUrl), { headers: { cookie } })).json();
	const nodeNames = new Set(nodeTypes.map((n) => n.name));
	check(
		'n8n lists the node types n8n-nodes-document-scanning.documentScanning and .documentScanningTrigger',
		nodeNames.has(`${PACKAGE_NAME}.documentScanning`) && nodeNames.has(`${PACKAGE_NAME}.documentScanningTrigger`),
		`${nodeNames.size} node types loaded${nodeNames.has(`${PACKAGE_NAME}.documentScanningTool`) ? ', AI tool variant too' : ''}`,
	);
	check(
		'n8n lists the credential type documentScanningApi',
		credTypes.some((c) => c.name === 'documentScanningApi'),
		`${credTypes.length} credential types loaded`,
	);
	const packageErrors = n8nLog.filter((l) => /error/i.test(l) && /document-scanning|documentScanning/i.test(l));
	check('n8n logs no error about the package', packageErrors.length === 0, packageErrors.slice(0, 3).join(' | '));

	// The credential test n8n runs when a credential is saved in the editor.
	const credTest = await fetch(new URL('rest/credentials/test', n8nUrl), {
		method: 'POST',
		headers: { cookie, 'content-type': 'application/json' },
		body: JSON.stringify({
			credentials: { id: CREDENTIAL.id, name: CREDENTIAL.name, type: CREDENTIAL.type, data: { baseUrl: sandbox.baseUrl, apiKey: SANDBOX_KEY, authHeader: 'authorization' } },
		}),
	});
	const credTestBody = await credTest.json().catch(() => ({}));
	check('the credential test (GET /account) passes in n8n', credTest.ok && credTestBody?.data?.status === 'OK', JSON.stringify(credTestBody?.data ?? credTestBody));

	// Activation registered the trigger's webhook in the sandbox.
	let hook;
	const deadline = Date.now() + 30_000;
	while (!hook && Date.now() < deadline) {
		const hooks = unwrap((await api(sandbox.baseUrl, '/webhooks')).body) ?? [];
		hook = hooks.find((h) => String(h.url).startsWith(`http://localhost:${port}/webhook/`));
		if (!hook) await new Promise((r) => setTimeout(r, 500));
	}
	check('the active Document Scanning Trigger registered its webhook in the sandbox', Boolean(hook), hook?.url ?? 'none');

	if (hook) {
		const form = new FormData();
		form.append('template_id', String(sandboxTemplates.find((tpl) => tpl.is_active !== false)?.id ?? sandboxTemplates[0].id));
		form.append('file', new Blob([Buffer.from('%PDF-1.4\n% e2e\n')], { type: 'application/pdf' }), 'e2e-invoice.pdf');
		const upload = await api(sandbox.baseUrl, '/scans', { method: 'POST', body: form });
		const scanId = unwrap(upload.body)?.id;
		const waited = await fetch(`${origin}/__sandbox/deliveries/wait`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ count: 1, timeoutMs: 30_000 }),
		});
		const deliveries = unwrap(await waited.json()) ?? [];
		const delivery = (Array.isArray(deliveries) ? deliveries : []).find((d) => d.webhookId === hook.id);
		check(
			'a signed scan delivery to n8n is accepted (HTTP 200)',
			upload.status === 201 || upload.status === 202 ? delivery?.status === 200 : false,
			`upload ${upload.status} scan ${scanId}, delivery ${delivery?.event} → ${delivery?.status ?? delivery?.error}`,
		);

		let execution;
		const until = Date.now() + 30_000;
		while (!execution && Date.now() < until) {
			const filter = encodeURIComponent(JSON.stringify({ workflowId: 'docscanExample03' }));
			const res = await fetch(new URL(`rest/executions?filter=${filter}`, n8nUrl), { headers: { cookie } });
			const body = await res.json().catch(() => ({}));
			const list = body?.data?.results ?? body?.data ?? [];
			execution = (Array.isArray(list) ? list : []).find((e) => e.status === 'success' || e.finished);
			if (!execution) await new Promise((r) => setTimeout(r, 500));
		}
		let carried = false;
		if (execution) {
			const res = await fetch(new URL(`rest/executions/${execution.id}`, n8nUrl), { headers: { cookie } });
			const text = await res.text();
			carried = text.includes('scan.completed') && text.includes('e2e-invoice.pdf');
		}
		check(
			'the delivery ran the trigger workflow to success in n8n, with the delivery body as its item',
			Boolean(execution) && carried,
			execution ? `execution ${execution.id} (${execution.mode}), scan.completed for e2e-invoice.pdf ${carried ? 'in' : 'NOT in'} its data` : 'no execution',
		);
	}

	// ---- Document Scanning Poll Trigger (issue #11): scripts/e2e-checks/poll-trigger.mjs ------
	await checkPollTrigger({ n8nUrl, cookie, sandboxBaseUrl: sandbox.baseUrl, apiKey: SANDBOX_KEY, credential: CREDENTIAL, check, log });
}

let crashed;
try {
	if (queue) await runQueueE2e({ check, verbose, only: queueParts });
	else await main();
} catch (err) {
	crashed = err;
	check('e2e ran to the end', false, err.stack ?? String(err));
	if (n8nLog.length) console.log(n8nLog.slice(-30).join('\n'));
} finally {
	await Promise.all([stopChild(n8n), stopChild(sandbox?.child)]);
}
const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || crashed ? 1 : 0);
