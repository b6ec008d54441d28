/**
 * The Postgres example's own SQL run for trigger items (postgres-sink-process.mjs, in a process of its
 * own): the sink's tables after each execution's items went through the example's steps in order.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

export async function runPostgresSink(
	workflow: unknown,
	runs: IDataObject[][],
): Promise<{ latest: IDataObject[]; booked: IDataObject[] }> {
	return await new Promise((resolve, reject) => {
		const child = execFile(
			process.execPath,
			[path.resolve(__dirname, 'postgres-sink-process.mjs')],
			(error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))),
		);
		child.stdin!.end(JSON.stringify({ workflow, runs }));
	});
}
