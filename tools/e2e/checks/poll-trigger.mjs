// e2e check of the Document Scanning Poll Trigger inside a running real n8n (issue #11).
//
// n8n refuses poll intervals under one minute, so the check uses both kinds of poll n8n makes:
// - the immediate poll of an activation (first activation: sets the start, emits no history;
//   re-activation: reloads the state n8n saved and catches up at once);
// - one scheduled poll ("Poll Times": every minute), waited for up to 75 s.
// Exactly once: every finished scan's file name must appear in exactly one execution of the
// workflow, the scans from before the first activation in none, and a re-activation with
// nothing new must start no execution.
//
// Usage: await checkPollTrigger({ n8nUrl, cookie, sandboxBaseUrl, apiKey, check, log })
//   check(name, ok, detail) records one PASS/FAIL line (the e2e runner's function).

import { SandboxClient } from '../sandbox-client.mjs';
import { n8nRest, sleep, unwrap } from './support.mjs';

const POLL_NODE_TYPE = 'n8n-nodes-document-scanning.documentScanningPollTrigger';
const SCHEDULED_WAIT_MS = 75_000;

export async function checkPollTrigger({
	n8nUrl,
	cookie,
	sandboxBaseUrl,
	apiKey,
	credential,
	check,
	log = console.log,
}) {
	const sandbox = new SandboxClient(sandboxBaseUrl, apiKey);
	const stamp = Date.now().toString(36);
	const rest = n8nRest({ n8nUrl, cookie });
	const api = async (pathname, init = {}) => {
		const { status, body } = await sandbox.api(pathname, init);
		return { status, body: unwrap(body) };
	};
	const scanPolls = () => sandbox.listingReads();
	/** The GET /scans count once it exceeds `count` (or after 20 s). */
	const pollsAbove = async (count) => {
		const deadline = Date.now() + 20_000;
		let now = await scanPolls();
		while (now <= count && Date.now() < deadline) {
			await sleep(250);
			now = await scanPolls();
		}
		return now;
	};
	const upload = (filename) => sandbox.uploadPdf(filename);
	const waitFinished = async (id) => {
		const deadline = Date.now() + 30_000;
		while (Date.now() < deadline) {
			const scan = (await api(`/scans/${id}`)).body;
			if (['completed', 'validation_failed', 'failed'].includes(scan?.status)) return scan.status;
			await sleep(200);
		}
		throw new Error(`scan ${id} did not finish`);
	};

	const types = await (
		await fetch(new URL('types/nodes.json', n8nUrl), { headers: { cookie } })
	).json();
	const type = types.find((n) => n.name === POLL_NODE_TYPE);
	check(
		'poll trigger: n8n lists the node type .documentScanningPollTrigger, with polling and "Poll Times"',
		Boolean(type?.polling) && type.properties.some((p) => p.name === 'pollTimes'),
		type ? `polling ${type.polling}` : 'not listed',
	);

	// ---- the workflow: the poll trigger alone, every minute ----------------------------------
	const workflow = {
		name: `e2e: poll trigger ${stamp}`,
		nodes: [
			{
				parameters: {
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					events: ['scan.completed', 'scan.failed'],
					options: {},
				},
				id: 'e2e00000-0000-4000-8000-0000000000a1',
				name: 'Document Scanning Poll Trigger',
				type: POLL_NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				credentials: { documentScanningApi: { id: credential.id, name: credential.name } },
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
		active: false,
	};
	const created = await rest('POST', 'workflows', workflow);
	const workflowId = created.body?.data?.id;
	if (
		!check(
			"poll trigger: the workflow is created through n8n's REST API",
			created.ok && Boolean(workflowId),
			`HTTP ${created.status}`,
		)
	) {
		log(JSON.stringify(created.body).slice(0, 500));
		return;
	}
	const setActive = async (active) => {
		if (!active) return await rest('POST', `workflows/${workflowId}/deactivate`, {});
		const current = await rest('GET', `workflows/${workflowId}`);
		return await rest('POST', `workflows/${workflowId}/activate`, {
			versionId: current.body?.data?.versionId,
		});
	};
	const executions = async () => {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const res = await rest('GET', `executions?filter=${filter}&limit=100`);
		const list = res.body?.data?.results ?? res.body?.data ?? [];
		const out = [];
		for (const execution of Array.isArray(list) ? list : []) {
			if (!(execution.finished || ['success', 'error', 'crashed'].includes(execution.status)))
				continue;
			const detail = await rest('GET', `executions/${execution.id}`);
			out.push({ id: execution.id, status: execution.status, text: JSON.stringify(detail.body) });
		}
		return out;
	};
	const countIn = (list, filename) => list.filter((e) => e.text.includes(filename)).length;

	// ---- first activation: starts from now --------------------------------------------------
	const seeded = await sandbox.control('POST', '/scans', {
		count: 2,
		status: 'completed',
		template_id: 1,
	});
	const historyIds = seeded.body?.ids ?? [];
	const historyNames = historyIds.map((id) => `seeded-scan-${id}.pdf`);
	const pollsBefore = await scanPolls();
	const activated = await setActive(true);
	// n8n 2.x finishes activating after the REST call returns: poll for the effect.
	const pollsAfter = await pollsAbove(pollsBefore);
	check(
		'poll trigger: activation succeeds and polls at once (no history emitted)',
		activated.ok && pollsAfter > pollsBefore,
		`HTTP ${activated.status}, ${pollsAfter - pollsBefore} GET /scans during activation${activated.ok ? '' : `: ${JSON.stringify(activated.body).slice(0, 300)}`}`,
	);
	if (!activated.ok) return;

	// ---- a scheduled poll (every minute) emits the scans finished since ---------------------
	const nameA = `e2e-poll-${stamp}-a.pdf`;
	const nameB = `e2e-poll-${stamp}-fail-b.pdf`; // "fail" in the name: the sandbox fails it
	const idA = await upload(nameA);
	const idB = await upload(nameB);
	const statuses = [await waitFinished(idA), await waitFinished(idB)];
	let t = Date.now();
	let list = [];
	while (Date.now() - t < SCHEDULED_WAIT_MS) {
		list = await executions();
		if (countIn(list, nameA) > 0 && countIn(list, nameB) > 0) break;
		await sleep(2_000);
	}
	check(
		'poll trigger: a scheduled poll (every minute) starts executions for the finished scans',
		countIn(list, nameA) === 1 && countIn(list, nameB) === 1,
		`scan ${idA} ${statuses[0]}, scan ${idB} ${statuses[1]}: ${list.length} execution(s) after ${((Date.now() - t) / 1000).toFixed(0)} s`,
	);

	// ---- re-activation reloads the saved state: nothing new, nothing emitted -----------------
	const countBefore = list.length;
	await setActive(false);
	const pollsBeforeRe = await scanPolls();
	const reactivated = await setActive(true);
	const pollsAfterRe = await pollsAbove(pollsBeforeRe);
	await sleep(3_000); // an emitted poll would have created its execution by now
	list = await executions();
	check(
		'poll trigger: deactivate + activate (state reloaded from the database) emits nothing twice',
		reactivated.ok && pollsAfterRe > pollsBeforeRe && list.length === countBefore,
		`${list.length - countBefore} new execution(s)`,
	);

	// ---- a scan finished while inactive comes out with the next activation's immediate poll ---
	await setActive(false);
	const nameC = `e2e-poll-${stamp}-c.pdf`;
	const idC = await upload(nameC);
	await waitFinished(idC);
	await setActive(true);
	t = Date.now();
	while (Date.now() - t < 20_000) {
		list = await executions();
		if (countIn(list, nameC) > 0) break;
		await sleep(1_000);
	}
	check(
		'poll trigger: a scan finished while the workflow was inactive comes out at the next activation',
		countIn(list, nameC) === 1,
		`${list.length} execution(s) in all`,
	);

	// ---- a listing that shifts during a poll: 25 scans created after page 1 was read -----------
	// 30 scans finish while the workflow is inactive; when the activation's poll reads page 2, the
	// sandbox creates 25 more, so page 2 starts with what page 1 held (a shifted page, not a server
	// that ignores `page`). Each of the 30 must come out once.
	await setActive(false);
	const seed = async (body) => {
		const res = await sandbox.control('POST', '/scans', body);
		return res.body?.ids ?? [];
	};
	const shiftIds = await seed({
		count: 30,
		status: 'completed',
		template_id: 1,
		filename: `e2e-shift-${stamp}-{id}.pdf`,
	});
	const shiftNames = shiftIds.map((id) => `e2e-shift-${stamp}-${id}.pdf`);
	await sandbox.control('POST', '/scans/during-listing', {
		afterListRequests: 1,
		scans: {
			count: 25,
			status: 'completed',
			template_id: 1,
			filename: `e2e-shift-new-${stamp}-{id}.pdf`,
		},
	});
	await setActive(true);
	t = Date.now();
	while (Date.now() - t < 20_000) {
		list = await executions();
		if (shiftNames.every((name) => countIn(list, name) > 0)) break;
		await sleep(1_000);
	}
	const shiftCounts = shiftNames.map((name) => countIn(list, name));
	check(
		'poll trigger: a listing that shifts by 25 scans during a poll loses none: each of 30 finished scans in exactly one execution',
		shiftCounts.every((c) => c === 1),
		`${shiftCounts.filter((c) => c === 1).length} of 30 once, ${shiftCounts.filter((c) => c === 0).length} never, ${shiftCounts.filter((c) => c > 1).length} more than once`,
	);

	// ---- exactly once over everything ------------------------------------------------------
	const counts = [nameA, nameB, nameC].map((name) => countIn(list, name));
	const history = historyNames.map((name) => countIn(list, name));
	check(
		'poll trigger: every finished scan in exactly one execution, history in none, all executions succeeded',
		counts.every((c) => c === 1) &&
			history.every((c) => c === 0) &&
			list.every((e) => e.status === 'success'),
		`per scan ${counts.join('/')}, history ${history.join('/')}, statuses ${[...new Set(list.map((e) => e.status))].join(',')}`,
	);
	await setActive(false);
}
