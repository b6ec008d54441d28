/**
 * Requests of listings that change while they are read (issue 25): Scan → Get Many by status,
 * with nothing changing and with one change during the listing, by account size (issue 33 §6:
 * the requests must not grow with the account), and the poll trigger's polls
 * for followed scans and late scans. Through n8n-core's engine (runNode, PollHarness) against
 * the sandbox in process; counts the API requests the sandbox saw. Prints figures; asserts
 * nothing. Run the same file on an older build to compare (the figures are requests, not times).
 *
 *   npm run build && npm run bench -- listing
 */
import { DEFAULT_API_KEY, type Sandbox, startSandbox } from '../../sandbox/server';
import { PollHarness } from '../../test/support/poll-harness';
import { runNode } from '../../test/support/run-node';

interface Case {
	name: string;
	/** Sets up the account and any change during the listing; returns the filter. */
	setup: (sandbox: Sandbox) => Record<string, string>;
}

const seed = (sandbox: Sandbox, count: number, status: string, template = 1) =>
	sandbox.control.seedScans({ count, status: status as never, template_id: template });

const GET_MANY: Case[] = [
	{
		name: 'processing, 30 of 70 scans, nothing changes',
		setup: (sandbox) => {
			seed(sandbox, 40, 'completed');
			seed(sandbox, 30, 'processing');
			return { status: 'processing' };
		},
	},
	{
		name: 'processing, 30 of 70 scans, the newest finishes at page 2',
		setup: (sandbox) => {
			seed(sandbox, 40, 'completed');
			const ids = seed(sandbox, 30, 'processing');
			sandbox.control.duringListing(0, {
				page: 2,
				status: { ids: [Math.max(...ids)], status: 'completed' },
			});
			return { status: 'processing' };
		},
	},
	{
		name: 'processing + template, 30 scans between another template’s, nothing changes',
		setup: (sandbox) => {
			for (let i = 0; i < 30; i++) {
				seed(sandbox, 1, 'processing', 1);
				seed(sandbox, 1, 'completed', 2);
			}
			return { status: 'processing', templateId: '1' };
		},
	},
	{
		name: 'completed, 70 scans, nothing changes',
		setup: (sandbox) => {
			seed(sandbox, 70, 'completed');
			return { status: 'completed' };
		},
	},
	{
		name: 'completed, 70 scans, one joins the middle between pages 3 and 2',
		setup: (sandbox) => {
			seed(sandbox, 50, 'completed');
			const [joining] = seed(sandbox, 1, 'processing');
			seed(sandbox, 20, 'completed');
			sandbox.control.setListing({ pageWaits: { page: 2, for: 3 } });
			sandbox.control.duringListing(0, {
				page: 2,
				status: { ids: [joining], status: 'completed' },
			});
			return { status: 'completed' };
		},
	},
	{
		name: 'no filter, 260 scans, nothing changes',
		setup: (sandbox) => {
			seed(sandbox, 260, 'completed');
			return {};
		},
	},
	{
		name: 'no filter, 260 scans, one added at page 2',
		setup: (sandbox) => {
			seed(sandbox, 260, 'completed');
			sandbox.control.duringListing(0, { page: 2, create: { count: 1 } });
			return {};
		},
	},
];

/** Issue 33 §6: Status = processing over accounts of growing size (the requests must not grow). */
const BY_SIZE: Array<{ name: string; setup: (sandbox: Sandbox, size: number) => void }> = [
	{
		name: '26 processing above the account, one finished among them',
		setup: (sandbox, size) => {
			seed(sandbox, size, 'completed');
			seed(sandbox, 1, 'processing');
			seed(sandbox, 1, 'completed');
			seed(sandbox, 25, 'processing');
		},
	},
	{
		name: 'one old stuck processing scan under the account, 25 recent',
		setup: (sandbox, size) => {
			seed(sandbox, 1, 'processing');
			seed(sandbox, size, 'completed');
			seed(sandbox, 25, 'processing');
		},
	},
	{
		name: 'exactly 25 processing above the account',
		setup: (sandbox, size) => {
			seed(sandbox, size, 'completed');
			seed(sandbox, 25, 'processing');
		},
	},
];

async function getManyRequests(sandbox: Sandbox, envelope: 'data' | 'bare', item: Case) {
	sandbox.control.reset({ envelope });
	const filters = item.setup(sandbox);
	sandbox.control.clearRequests();
	const result = await runNode({
		parameters: { resource: 'scan', operation: 'getAll', returnAll: true, filters },
		env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY },
	});
	const requests = sandbox.control.requests();
	return {
		requests: requests.length,
		listings: requests.filter((r) => r.path === '/scans').length,
		unfiltered: requests.filter((r) => filters.status && r.query.status === undefined).length,
		items: result.output.length,
		error: result.error?.message,
	};
}

async function pollRequests(sandbox: Sandbox, followed: number): Promise<string> {
	sandbox.control.reset();
	const trigger = await PollHarness.create({
		parameters: { events: ['scan.completed', 'scan.failed'] },
		env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY },
	});
	seed(sandbox, 500, 'completed');
	await trigger.activate();
	const ids = seed(sandbox, followed, 'processing');
	await trigger.poll();
	for (const id of ids) sandbox.control.setScanStatus(id, 'completed');
	let polls = 0;
	let requests = 0;
	let out = 0;
	while (out < followed && polls < 100) {
		sandbox.control.clearRequests();
		out += (await trigger.poll())?.length ?? 0;
		requests += sandbox.control.requests().length;
		polls++;
	}
	return `${followed} followed scans, all finished: ${out} out after ${polls} poll(s), ${requests} requests`;
}

export async function main(): Promise<void> {
	const sandbox = await startSandbox({ processingDelayMs: 20 });
	try {
		console.log(`Scan → Get Many, Return All: API requests (${process.version}):`);
		for (const item of GET_MANY) {
			const cells = [];
			for (const envelope of ['data', 'bare'] as const) {
				const figure = await getManyRequests(sandbox, envelope, item);
				cells.push(
					`${envelope} ${figure.requests} (${figure.unfiltered} without the status filter), ${figure.items} items${figure.error ? `, error: ${figure.error}` : ''}`,
				);
			}
			console.log(`  ${item.name}: ${cells.join('; ')}`);
		}
		console.log('Scan → Get Many, Status = processing, Return All, by account size: API requests:');
		for (const shape of BY_SIZE) {
			const cells = [];
			for (const size of [100, 2_000, 10_000])
				for (const envelope of ['data', 'bare'] as const) {
					const figure = await getManyRequests(sandbox, envelope, {
						name: shape.name,
						setup: (box) => {
							shape.setup(box, size);
							return { status: 'processing' };
						},
					});
					cells.push(
						`${size} ${envelope} ${figure.requests}${figure.error ? ` (error: ${figure.error})` : ''}`,
					);
				}
			console.log(`  ${shape.name}: ${cells.join('; ')}`);
		}
		console.log(
			'Scan → Get Many, Status = completed, nothing changes, by pages (scans made a minute apart / all at once, an hour ago or more): GET /scans requests:',
		);
		for (const pages of [4, 40, 360]) {
			const cells = [];
			for (const apart of [60_000, 0])
				for (const envelope of ['data', 'bare'] as const) {
					const figure = await getManyRequests(sandbox, envelope, {
						name: `${pages} pages`,
						setup: (box) => {
							const count = pages * 25;
							box.control.seedScans({
								count,
								status: 'completed',
								age_ms: 3_600_000,
								apart_ms: apart,
							});
							return { status: 'completed' };
						},
					});
					cells.push(`${apart ? 'apart' : 'at once'} ${envelope} ${figure.listings}`);
				}
			console.log(`  ${pages} pages: ${cells.join('; ')}`);
		}
		console.log('Poll trigger, 500 older scans:');
		for (const followed of [60, 200]) console.log(`  ${await pollRequests(sandbox, followed)}`);
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) {
	main().then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
