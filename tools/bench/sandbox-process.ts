/** The sandbox CLI in its own process (so memory figures are the node's own), driven over HTTP. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { FinishedScan } from './held';
import { heldDelays } from './held';

export interface SandboxProcess {
	origin: string;
	baseUrl: string;
	control: <T = unknown>(method: string, route: string, body?: unknown) => Promise<T>;
	stop: () => void;
}

export interface RequestEntry {
	method: string;
	path: string;
	query: Record<string, string>;
	status: number | null;
	atMs: number;
}

export async function startSandboxProcess(args: string[] = []): Promise<SandboxProcess> {
	const child = spawn(
		process.execPath,
		[
			'-r',
			'ts-node/register/transpile-only',
			path.join(__dirname, '../../sandbox/cli.ts'),
			'--port',
			'0',
			'--quiet',
			'--allow-insecure-webhooks',
			...args,
		],
		{
			stdio: ['ignore', 'pipe', 'inherit'],
			env: { ...process.env, TS_NODE_PROJECT: path.join(__dirname, '../../sandbox/tsconfig.json') },
		},
	);
	const origin = await new Promise<string>((resolve, reject) => {
		let out = '';
		child.stdout.on('data', (chunk: Buffer) => {
			out += chunk.toString();
			const match = /Base URL:\s+(http:\/\/[^/\s]+)\/api\/v1/.exec(out);
			if (match) resolve(match[1]);
		});
		child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${out}`)));
	});
	const control = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
		const response = await fetch(`${origin}/__sandbox/${route}`, {
			method,
			headers: { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return (await response.json()) as T;
	};
	return { origin, baseUrl: `${origin}/api/v1`, control, stop: () => child.kill('SIGTERM') };
}

/** A PDF header followed by filler, unique per call so the service does not answer 409. */
export function pdfOfSize(bytes: number, label: string): Buffer {
	const file = Buffer.alloc(Math.max(bytes, 64), 0x20);
	file.write(
		`%PDF-1.7\n% benchmark ${label} ${process.pid} ${Date.now()} ${Math.random()}\n`,
		0,
		'latin1',
	);
	file.write('\n%%EOF\n', file.length - 7, 'latin1');
	return file;
}

export function percentile(values: number[], p: number): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** For each scan: how long after the service finished it the node held it (see `heldDelays`). */
export async function deliveryDelays(
	sandbox: SandboxProcess,
	scanIds: number[],
	latencyMs: number,
): Promise<number[]> {
	const requests = await sandbox.control<RequestEntry[]>('GET', 'requests');
	const { listedScans } = await sandbox.control<{ listedScans: string }>('GET', 'options');
	const scans: FinishedScan[] = [];
	for (const id of scanIds)
		scans.push({ id, ...(await sandbox.control<Omit<FinishedScan, 'id'>>('GET', `scans/${id}`)) });
	return heldDelays(requests, scans, { latencyMs, listedScans });
}
