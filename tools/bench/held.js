// @ts-check
'use strict';

/**
 * @typedef {{ method: string; path: string; query: Record<string, string>; status: number | null; atMs: number }} LoggedRequest
 * @typedef {{ id: number; updatedAt: number; templateId: number }} FinishedScan
 */

/**
 * For each scan: how long after the service finished it the workflow held it, from the
 * sandbox's request log: the first request handled (arrival + latency) after `updatedAt` that
 * gives the whole scan: its `GET /scans/{id}`, or, when the sandbox lists whole records (option
 * listedScans 'full', its default), a `GET /scans` page of its template. Pages of one round go
 * side by side, so a round counts at its first page (a few ms early at most). Scans never held
 * after they finished give no figure.
 * @param {LoggedRequest[]} requests
 * @param {FinishedScan[]} scans
 * @param {{ latencyMs: number; listedScans: string }} sandbox
 * @returns {number[]}
 */
function heldDelays(requests, scans, { latencyMs, listedScans }) {
	const delays = [];
	for (const scan of scans) {
		/** @param {LoggedRequest} r */
		const givesScan = (r) =>
			r.path === `/scans/${scan.id}` ||
			(listedScans === 'full' &&
				r.path === '/scans' &&
				r.query.template_id === String(scan.templateId));
		const handled = requests
			.filter((r) => r.method === 'GET' && r.status === 200 && givesScan(r))
			.map((r) => r.atMs + latencyMs)
			.filter((at) => at >= scan.updatedAt);
		if (handled.length > 0) delays.push(Math.min(...handled) - scan.updatedAt);
	}
	return delays;
}

module.exports = { heldDelays };
