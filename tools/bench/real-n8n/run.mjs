// Running one benchmark workflow in a real n8n: `n8n execute --id --rawOutput` in a fresh n8n home
// per line, the run data parsed from its output, and the sandbox's control routes.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';

import {
	LOCAL,
	freePort,
	importCredential,
	installPackage,
	n8nEnv,
	n8nIsInstalled,
	n8nLine,
	n8nSync,
} from '../../n8n/local.mjs';

/**
 * A fresh n8n home for `version` (.n8n-local/bench-home-<version>/) with this package and the
 * sandbox's credential. Returns undefined when that line is not installed.
 */
export async function prepareLine(version, baseUrl) {
	const line = n8nLine(version);
	if (!n8nIsInstalled(line)) return undefined;
	const home = path.join(LOCAL, `bench-home-${version}`);
	rmSync(home, { recursive: true, force: true });
	mkdirSync(home, { recursive: true });
	installPackage(home, line);
	const env = n8nEnv({ line, home, port: await freePort(), brokerPort: await freePort() });
	importCredential({ baseUrl, env });
	return { line, home, env };
}

/** Runs a workflow to its end; returns n8n's run data. */
export function executeWorkflow(id, env, timeoutMs = 600_000) {
	const exec = n8nSync(['execute', `--id=${id}`, '--rawOutput'], { env, timeoutMs });
	if (!exec.stdout.includes('{'))
		throw new Error(
			`n8n execute exited with ${exec.status ?? exec.signal} and no JSON: ${exec.stdout.slice(-1000)} ${exec.stderr.slice(-2000)}`,
		);
	return parseRunOutput(exec.stdout);
}

/**
 * The JSON document `n8n execute --rawOutput` prints after its log lines: alone on its lines, or,
 * with the debug log on, as one log entry ("<time> | info  | {" … "} {<log metadata>}").
 */
export function parseRunOutput(stdout) {
	const open = /(?:^|\n)(?:[^\n]*\| info {2}\| )?\{\n/.exec(stdout);
	const end = stdout.lastIndexOf('\n}');
	if (!open || end < open.index)
		throw new Error(`no JSON in the output of n8n execute:\n${stdout.slice(-2000)}`);
	const start = stdout.indexOf('{', open.index);
	return JSON.parse(stdout.slice(start, end + 2));
}

/** From the first measured node's start to the last one's end, in n8n's own run data. */
export function span(run, first, last) {
	const runData = run?.data?.resultData?.runData ?? {};
	const a = runData[first]?.[0];
	const b = runData[last]?.[0];
	if (!a || !b)
		throw new Error(
			`no run data for ${first} / ${last}: ${JSON.stringify(run?.data?.resultData?.error ?? {}).slice(0, 500)}`,
		);
	return b.startTime + b.executionTime - a.startTime;
}

/** The JSON of every output item of a node's first run. */
export function outputOf(run, nodeName) {
	return (run?.data?.resultData?.runData?.[nodeName]?.[0]?.data?.main?.[0] ?? []).map(
		(item) => item.json,
	);
}

/** One call of the sandbox's control surface (/__sandbox/...). */
export async function control(origin, method, route, body, attempt = 0) {
	try {
		const response = await fetch(`${origin}/__sandbox/${route}`, {
			method,
			headers: { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return await response.json();
	} catch (error) {
		// A kept-alive connection the sandbox closed while `n8n execute` ran: once more, on a new one.
		if (attempt === 0) return await control(origin, method, route, body, 1);
		throw error;
	}
}

export function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	if (sorted.length === 0) return NaN;
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function round(value, digits = 2) {
	const factor = 10 ** digits;
	return Math.round(value * factor) / factor;
}
