/**
 * The sandbox's rewrites (sandbox/engine/rewrites.ts): answers within what the API documentation
 * leaves open, after the service acted (docs/sandbox.md, "Readings").
 */
import { DEFAULT_API_KEY, startSandbox, type Sandbox } from '../../sandbox/server';
import { pdfBytes } from '../support/fixtures';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 10 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.control.reset());

/** POST /scans without following a redirect. */
async function postScan(file: Buffer, name: string): Promise<Response> {
	const form = new FormData();
	form.append('template_id', '1');
	form.append('file', new Blob([file]), name);
	return await fetch(`${sandbox.baseUrl}/scans`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${DEFAULT_API_KEY}` },
		body: form,
		redirect: 'manual',
	});
}

const get = async (route: string) =>
	await fetch(`${sandbox.baseUrl}${route}`, {
		headers: { Authorization: `Bearer ${DEFAULT_API_KEY}` },
		redirect: 'manual',
	});

test('createdStatus 302: the upload is stored and charged, the answer points to its scan', async () => {
	sandbox.control.setRewrites([{ rule: 'createdStatus', value: '302' }]);
	const res = await postScan(pdfBytes('prg'), 'prg.pdf');
	expect(res.status).toBe(302);
	const [entry] = sandbox.control.requests();
	expect(res.headers.get('location')).toBe(`${sandbox.baseUrl}/scans/${entry.scanId}`);
	expect(sandbox.control.getScan(entry.scanId!)?.charged).toBe(true);
	expect(entry.status).toBe(302);
});

test('redirectBefore: nothing is done; after and times count only matching answers', async () => {
	sandbox.control.setRewrites([
		{ rule: 'redirectBefore', value: '307', method: 'POST', path: '^/scans$', after: 1, times: 1 },
	]);
	const statuses = [];
	for (const label of ['a', 'b', 'c'])
		statuses.push((await postScan(pdfBytes(label), `${label}.pdf`)).status);
	expect(statuses).toEqual([201, 307, 201]);
	expect(sandbox.control.account().used_scans).toBe(2);
});

test('unpromisedFields null on the listing: the promised fields stay, the others are null', async () => {
	sandbox.control.seedScans({ count: 1 });
	sandbox.control.setRewrites([{ rule: 'unpromisedFields', value: 'null', path: '^/scans$' }]);
	const body = (await (await get('/scans')).json()) as { data: Array<Record<string, unknown>> };
	const [scan] = body.data;
	expect(scan).toMatchObject({ id: 1, status: 'completed', template_id: 1 });
	expect(scan.extracted_data).toBeNull();
	expect(scan.is_partial).toBeNull();
});

test('body html on any status, listOrder on templates', async () => {
	sandbox.control.setRewrites([
		{ rule: 'body', value: 'html', path: '^/scans/\\d+$' },
		{ rule: 'listOrder', value: 'reversed', path: '^/templates$' },
	]);
	const missing = await get('/scans/999');
	expect(missing.status).toBe(404);
	expect(missing.headers.get('content-type')).toMatch(/text\/html/);
	const templates = (await (await get('/templates')).json()) as { data: Array<{ id: number }> };
	const ids = templates.data.map((t) => t.id);
	expect(ids).toEqual([...ids].sort((a, b) => b - a));
});
