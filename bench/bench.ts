/**
 * Benchmarks of the action node, run through n8n-core's engine against the local sandbox.
 * Prints figures; asserts nothing (speed and memory goals are read from the output).
 *
 *   npm run build && npm run bench
 *   npm run bench -- --upload-mb 20 --uploads 4 --scans 2000
 */
import { parseArgs } from 'node:util';

import { DEFAULT_API_KEY, startSandbox } from '../sandbox/server';
import { binaryItem, runNode } from '../test/harness/n8n';

const { values } = parseArgs({
	options: {
		'upload-mb': { type: 'string', default: '20' },
		uploads: { type: 'string', default: '4' },
		scans: { type: 'string', default: '2000' },
	},
});
const uploadBytes = Math.floor(Number(values['upload-mb']) * 1024 * 1024);
const uploadCount = Number(values.uploads);
const scanCount = Number(values.scans);

const MB = 1024 * 1024;
const fmt = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

/** Samples RSS while `work` runs and returns the peak above the starting point. */
async function measure<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; peakRssDelta: number }> {
	global.gc?.();
	const start = process.memoryUsage().rss;
	let peak = start;
	const timer = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage().rss);
	}, 5);
	const began = performance.now();
	const result = await work();
	const ms = performance.now() - began;
	clearInterval(timer);
	peak = Math.max(peak, process.memoryUsage().rss);
	return { result, ms, peakRssDelta: peak - start };
}

/** A valid PDF header followed by filler, unique per index so the service does not answer 409. */
function pdfOfSize(bytes: number, index: number): Buffer {
	const file = Buffer.alloc(bytes, 0x20);
	file.write(`%PDF-1.7\n% benchmark file ${index} ${Date.now()}\n`, 0, 'latin1');
	file.write('\n%%EOF\n', bytes - 7, 'latin1');
	return file;
}

async function main() {
	const sandbox = await startSandbox({ processingDelayMs: 10 });
	const env = { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY };
	console.log(`node ${process.version}, ${process.platform}/${process.arch}`);

	// 1. Uploads of large files: time and memory per file.
	const items = Array.from({ length: uploadCount }, (_, i) =>
		binaryItem(pdfOfSize(uploadBytes, i), `bench-${i}.pdf`, 'application/pdf'),
	);
	const upload = await measure(() =>
		runNode({
			parameters: {
				resource: 'scan',
				operation: 'upload',
				templateId: { __rl: true, mode: 'id', value: '1' },
				binaryPropertyName: 'data',
				waitForCompletion: false,
			},
			items,
			env,
		}),
	);
	if (upload.result.error) throw upload.result.error;
	const uploaded = upload.result.output.filter((item) => item.json.id !== undefined).length;
	const totalBytes = uploadBytes * uploadCount;
	console.log(
		`upload: ${uploaded}/${uploadCount} files of ${fmt(uploadBytes)} in ${upload.ms.toFixed(0)} ms ` +
			`(${(totalBytes / MB / (upload.ms / 1000)).toFixed(1)} MB/s); peak RSS +${fmt(upload.peakRssDelta)} ` +
			`(${(upload.peakRssDelta / uploadBytes).toFixed(2)}x one file, input items held in memory: ${fmt(totalBytes * 4 / 3)} base64)`,
	);

	// 2. Get Many over a long listing: pages of 25 until the end.
	sandbox.control.reset();
	sandbox.control.seedScans({ count: scanCount, template_id: 2 });
	const list = await measure(() =>
		runNode({ parameters: { resource: 'scan', operation: 'getAll', returnAll: true }, env }),
	);
	if (list.result.error) throw list.result.error;
	const pages = sandbox.control.requests().filter((r) => r.path === '/scans').length;
	console.log(
		`getAll: ${list.result.output.length} scans over ${pages} pages in ${list.ms.toFixed(0)} ms ` +
			`(${((list.ms / pages) || 0).toFixed(1)} ms/page); peak RSS +${fmt(list.peakRssDelta)}`,
	);

	await sandbox.close();
}

main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
