/** One line per figure of tools/bench/bench.ts, printed as they come. */
import type { BatchFigure, PagingFigure } from './batch';

type Figure = Record<string, any>;

export function printBatch(prefix: string, f: BatchFigure): void {
	console.log(
		`${prefix} ${String(f.uploads).padStart(3)} uploads, ${f.envelope.padEnd(4)}: ${f.wallMs} ms = ${f.ratioToBound}x the bound ` +
			`(${f.processingMs} ms processing + ${f.uploadOnlyMs} ms uploads alone, Concurrency ${f.concurrency}), ${f.ratioToProcessing}x the processing time; ` +
			`${f.getsPerDocument} GET/doc; held ${f.deliveryP50Ms} ms (p50) / ${f.deliveryMaxMs} ms (max) after the service finished; input order ${f.inInputOrder ? 'kept' : 'BROKEN'}`,
	);
}

export function printPaging(prefix: string, f: PagingFigure | Figure): void {
	console.log(
		`${prefix}Return All ${f.scans} scans (${f.pages} pages), ${String(f.envelope).padEnd(4)}: ${f.wallMs} ms = ${f.ratio}x pages x latency (${f.sequentialMs} ms); ` +
			`output ${f.correct ? 'complete, newest first, no duplicates' : 'WRONG'}`,
	);
}

/** A real n8n line's figures, each on one line; the batch pairs with the ratio between them. */
export function printRealLine(line: Figure): void {
	const p = `real n8n ${line.n8n}:`;
	if (line.skipped) {
		console.log(`${p} skipped: ${line.skipped}`);
		return;
	}
	const figures: Figure[] = line.figures ?? [];
	for (const f of figures) {
		if (f.scenario === 'batch') {
			const diy = figures.find(
				(o) => o.scenario === 'batch' && o.kind === 'diy' && o.uploads === f.uploads,
			);
			const versus =
				f.kind === 'node' && diy
					? ` (do-it-yourself ${diy.ratioToProcessing}x: ours is ${Math.round((f.wallMs / diy.wallMs) * 100) / 100}x its time)`
					: '';
			console.log(
				`${p} ${f.kind === 'node' ? 'node' : 'diy '} ${String(f.uploads).padStart(4)} documents in ${f.executions} execution(s), ${f.envelope}: ` +
					`${f.wallMs} ms = ${f.ratioToProcessing}x the processing time${versus}; worst execution ${f.worstExecutionRatio}x; ` +
					`uploads ${f.uploadSpanMs} ms, then ${f.afterUploadsMs} ms to the last answer; ` +
					`${f.requestsPerDocument} requests/doc; held ${f.deliveryP50Ms} / ${f.deliveryMaxMs} ms (p50/max) after the service finished; ${f.complete ? 'every scan, in order' : 'INCOMPLETE'}`,
			);
		} else if (f.scenario === 'memory') {
			const runs = (kind: string) =>
				(f.runs[kind] ?? []).map((r: Figure) => r.increaseMb).join(', ');
			console.log(
				`${p} upload step memory, ${f.files} files of ${f.fileMb} MB, filesystem mode, median of ${f.processes}: ` +
					`node (Concurrency ${f.concurrency}) +${f.increaseMb.memNode} MB [${runs('memNode')}] = ${f.ratios.memHttpLoop}x ` +
					`HTTP Request in Loop Over Items batches of ${f.concurrency} +${f.increaseMb.memHttpLoop} MB [${runs('memHttpLoop')}]` +
					(f.increaseMb.memHttpBatching !== undefined
						? `; HTTP Request with its own Batching option +${f.increaseMb.memHttpBatching} MB [${runs('memHttpBatching')}]`
						: '') +
					`; ${f.allUploaded ? 'every file uploaded' : 'NOT ALL UPLOADED'}`,
			);
		} else if (f.scenario === 'returnAll') {
			printPaging(`${p} `, f);
		} else if (f.scenario === 'timeout') {
			console.log(
				`${p} Wait Timeout ${f.waitTimeoutS} s under 429 + Retry-After 30, ${f.envelope}: the item failed after ${f.wallMs} ms = ${f.ratioToTimeout}x the timeout`,
			);
		}
	}
	console.log(
		`${p} load average ${line.loadAverage.min}-${line.loadAverage.max} (mean ${line.loadAverage.mean}) while it ran`,
	);
}
