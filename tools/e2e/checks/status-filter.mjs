// e2e check of Scan → Get Many with a status filter while scans finish, inside a running real
// n8n (issue 25 §1): a filtered listing loses and gains scans in the middle while it is read.
//
// A workflow Webhook (GET, answers with every item of the last node) → Document Scanning: Scan →
// Get Many, Return All, Status from the query string. The sandbox changes statuses exactly when a
// chosen page is requested (`/__sandbox/during-listing`), and serves page 2 after page 3
// (`/__sandbox/listing` pageWaits), without timing:
// - Status = processing over 30 scans: the newest finishes when page 2 is requested. Every scan
//   that stayed processing must come out exactly once (before issue 25: 29 of 30 lost one).
// - Status = completed, bare arrays: a scan finishes between pages 3 and 2 and joins the middle.
//   Every scan completed throughout must come out exactly once (before: one of 70 was lost).
// The account also holds the other checks' scans: only this check's scans are counted, and no
// scan may come out twice.
//
// Usage: await checkStatusFilter(ctx)   (ctx: the E2eContext of tools/e2e/checks/support.mjs)

import { restOf, sandboxOf, sleep } from './support.mjs';

const ACTION = 'n8n-nodes-document-scanning.documentScanning';

export async function checkStatusFilter(ctx) {
	const { check, credential } = ctx;
	const sandbox = sandboxOf(ctx);
	const rest = restOf(ctx);
	const stamp = Date.now().toString(36);
	const path = `e2e-status-filter-${stamp}`;
	const workflow = {
		name: `e2e: Get Many by status while scans finish ${stamp}`,
		nodes: [
			{
				parameters: {
					httpMethod: 'GET',
					path,
					responseMode: 'lastNode',
					responseData: 'allEntries',
					options: {},
				},
				id: 'e2e00000-0000-4000-8000-0000000000b1',
				webhookId: `e2e0b100-0000-4000-8000-${Date.now().toString(16).padStart(12, '0').slice(-12)}`,
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
			},
			{
				parameters: {
					resource: 'scan',
					operation: 'getAll',
					returnAll: true,
					filters: { status: '={{ $json.query.status }}' },
				},
				id: 'e2e00000-0000-4000-8000-0000000000b2',
				name: 'Scans by status',
				type: ACTION,
				typeVersion: 1,
				position: [220, 0],
				credentials: { documentScanningApi: { id: credential.id, name: credential.name } },
			},
		],
		connections: { Webhook: { main: [[{ node: 'Scans by status', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		active: false,
	};
	const created = await rest.request('POST', 'workflows', workflow);
	const workflowId = created.body?.data?.id;
	if (
		!check(
			'Get Many by status: the workflow is created',
			Boolean(created.ok && workflowId),
			`HTTP ${created.status}${created.ok ? '' : `: ${JSON.stringify(created.body).slice(0, 300)}`}`,
		)
	)
		return;
	const activated = await rest.setActive(workflowId, true);
	const url = new URL(`webhook/${path}`, ctx.n8nUrl);
	/** The webhook's answer: the Get Many items (2.x registers the webhook after activating). */
	const listByStatus = async (status) => {
		const deadline = Date.now() + 20_000;
		for (;;) {
			const res = await fetch(`${url}?status=${status}`);
			const text = await res.text();
			if (res.status !== 404 || Date.now() > deadline) {
				let json;
				try {
					json = JSON.parse(text);
				} catch {
					json = undefined;
				}
				return { status: res.status, items: Array.isArray(json) ? json : undefined, text };
			}
			await sleep(500);
		}
	};
	/** Exactly once each of `throughout`, at most once `changed`, no scan twice in all. */
	const judge = (items, throughout, changed) => {
		const ids = (items ?? []).map((item) => Number(item.id));
		const counts = throughout.map((id) => ids.filter((x) => x === id).length);
		const twice = ids.length - new Set(ids).size;
		const changedCount = ids.filter((x) => changed.includes(x)).length;
		return {
			ok:
				items !== undefined &&
				counts.every((c) => c === 1) &&
				twice === 0 &&
				changedCount <= changed.length,
			detail: `${counts.filter((c) => c === 1).length} of ${throughout.length} once, ${counts.filter((c) => c === 0).length} missing, ${twice} twice in ${ids.length} items`,
		};
	};

	try {
		if (
			!check(
				'Get Many by status: the webhook workflow is activated',
				activated.ok,
				`HTTP ${activated.status}`,
			)
		)
			return;

		// ---- Status = processing: the newest of 30 finishes when page 2 is requested --------------
		let t = Date.now();
		const processing = await sandbox.seedScans({ count: 30, status: 'processing', template_id: 1 });
		const newest = Math.max(...processing);
		await sandbox.control('POST', '/during-listing', {
			afterListRequests: 0,
			page: 2,
			status: { ids: [newest], status: 'completed' },
		});
		const first = await listByStatus('processing');
		const a = judge(
			first.items,
			processing.filter((id) => id !== newest),
			[newest],
		);
		check(
			'Get Many, Status = processing, Return All while the newest of 30 scans finishes: the 29 that stayed processing come out exactly once',
			first.status === 200 && a.ok,
			`HTTP ${first.status}, ${a.detail}, ${Date.now() - t} ms${first.items ? '' : `: ${first.text.slice(0, 300)}`}`,
		);

		// ---- Status = completed, bare arrays: a scan joins the middle between pages 3 and 2 --------
		t = Date.now();
		await sandbox.control('POST', '/options', { envelope: 'bare' });
		const older = await sandbox.seedScans({ count: 50, status: 'completed', template_id: 1 });
		const [joining] = await sandbox.seedScans({ count: 1, status: 'processing', template_id: 1 });
		const newer = await sandbox.seedScans({ count: 20, status: 'completed', template_id: 1 });
		await sandbox.control('POST', '/listing', { pageWaits: { page: 2, for: 3 } });
		await sandbox.control('POST', '/during-listing', {
			afterListRequests: 0,
			page: 2,
			status: { ids: [joining], status: 'completed' },
		});
		const second = await listByStatus('completed');
		const b = judge(second.items, [...older, ...newer], [joining]);
		check(
			'Get Many, Status = completed, bare arrays, while a scan finishes between pages served out of order: every scan completed throughout comes out exactly once',
			second.status === 200 && b.ok,
			`HTTP ${second.status}, ${b.detail}, ${Date.now() - t} ms${second.items ? '' : `: ${second.text.slice(0, 300)}`}`,
		);
	} finally {
		await sandbox.control('POST', '/listing', { pageWaits: null });
		await sandbox.control('POST', '/options', { envelope: 'data' });
		await rest.setActive(workflowId, false);
	}
}
