/**
 * Seeded histories: a large account (thousands of scans of one template) and the same bytes
 * stored earlier under another name, which the node's "Return Existing Scan" tests need.
 */
import { createHash } from 'node:crypto';

import { Sandbox, startSandbox } from '../../sandbox/server';
import { pdfBytes } from '../support/fixtures';
import { api, unwrap, postScan } from '../support/sandbox-api';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ processingDelayMs: 20 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.control.reset());

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('seeded history', () => {
	it('a scan seeded with a name and a content digest: an upload of those bytes under another name gets 409', async () => {
		const bytes = pdfBytes('history');
		const [id] = sandbox.control.seedScans({
			count: 1,
			filename: 'Invoice-2024-03.pdf',
			content_sha256: sha256(bytes),
		});
		expect(unwrap((await api(sandbox, 'GET', `/scans/${id}`)).body).filename).toBe(
			'Invoice-2024-03.pdf',
		);
		expect((await postScan(sandbox, { file: bytes, filename: 'scan.pdf' })).status).toBe(409);
		expect(
			(await postScan(sandbox, { file: pdfBytes('other'), filename: 'scan.pdf' })).status,
		).toBe(201);
		expect(sandbox.control.account().used_scans).toBe(1);
	});

	it('{id} in the name becomes the scan ID; without a name, seeded-scan-{id}.pdf', () => {
		const ids = sandbox.control.seedScans({ count: 2, filename: 'old-{id}.pdf' });
		expect(ids.map((id) => sandbox.control.getScan(id)?.filename)).toEqual(
			ids.map((id) => `old-${id}.pdf`),
		);
		const [plain] = sandbox.control.seedScans({ count: 1 });
		expect(sandbox.control.getScan(plain)?.filename).toBe(`seeded-scan-${plain}.pdf`);
	});

	it('refuses a digest that is not hex, and a digest for more than one scan', () => {
		expect(() => sandbox.control.seedScans({ count: 1, content_sha256: 'abc' })).toThrow(
			/64 lower-case hex/,
		);
		expect(() =>
			sandbox.control.seedScans({ count: 2, content_sha256: sha256(pdfBytes()) }),
		).toThrow(/count 1/);
		expect(() => sandbox.control.seedScans({ count: 1, filename: '' })).toThrow(/filename/);
	});

	it('over HTTP too, and a large account of 20,000 scans lists 800 pages', async () => {
		const bytes = pdfBytes('http');
		const reply = await fetch(`${sandbox.origin}/__sandbox/scans`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ count: 1, filename: 'a.pdf', content_sha256: sha256(bytes) }),
		});
		expect(reply.status).toBe(201);
		expect((await postScan(sandbox, { file: bytes, filename: 'b.pdf' })).status).toBe(409);
		sandbox.control.seedScans({ count: 20_000 });
		// Seeding blocked the event loop: let the server close its idle kept-alive sockets (and the
		// client see it) before the next request, as after any blocking call.
		for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
		const last = (await api(sandbox, 'GET', '/scans?page=800')).body;
		expect(last.meta).toEqual(expect.objectContaining({ last_page: 801, total: 20_001 }));
		expect(last.data).toHaveLength(25);
	});
});
