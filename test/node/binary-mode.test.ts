/**
 * Uploads from n8n's filesystem binary mode: the item holds only an ID, the file lives on
 * disk, and the node reads it through n8n's binary helpers (size from the metadata first).
 * The upload streams from the store: the file is never read whole into memory, each attempt
 * opens the stream again, and the SHA-256 is digested from a stream too.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IBinaryData } from 'n8n-workflow';

import { jsonOf, LATEST, rl, run, uploadParams, useSandbox } from './helpers';
import { binaryItem, pdfBytes } from '../support/fixtures';

const sb = useSandbox();
let storage: string;
let service: BinaryDataService;

beforeAll(async () => {
	storage = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-binary-'));
	const config = {
		mode: 'filesystem',
		availableModes: ['filesystem'],
		localStoragePath: storage,
		signingSecret: 'test',
	};
	const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };
	service = new BinaryDataService(config as never, { error: () => {} } as never, quiet as never);
	await service.init();
	Container.set(BinaryDataService, service);
});

afterEach(() => {
	jest.restoreAllMocks();
});

afterAll(() => {
	fs.rmSync(storage, { recursive: true, force: true });
});

async function stored(content: Buffer, fileName: string, mimeType: string): Promise<IBinaryData> {
	const binary = await service.store(
		{ type: 'execution', workflowId: 'wf', executionId: '1' },
		content,
		{
			data: '',
			mimeType,
			fileName,
		} as IBinaryData,
	);
	return { ...binary, fileName, mimeType };
}

test('a file stored on disk is uploaded', async () => {
	const content = pdfBytes();
	const binary = await stored(content, 'on-disk.pdf', 'application/pdf');
	expect(binary.id).toMatch(/^filesystem/);
	expect(binary.data).not.toBe(content.toString('base64'));
	const result = await run(sb.env(), { resource: 'scan', operation: 'upload', templateId: rl(1) }, [
		{ json: {}, binary: { data: binary } },
	]);
	expect(result.error).toBeUndefined();
	expect(jsonOf(result)[0]).toEqual(
		expect.objectContaining({ filename: 'on-disk.pdf', status: 'uploaded' }),
	);
	expect(sb.get().control.getScan(1)?.contentSha256).toBeDefined();
});

test('an oversized file on disk is refused from its metadata, before any request', async () => {
	const big = Buffer.concat([Buffer.from('%PDF'), Buffer.alloc(20 * 1024 * 1024)]);
	const binary = await stored(big, 'big.pdf', 'application/pdf');
	const result = await run(sb.env(), { resource: 'scan', operation: 'upload', templateId: rl(1) }, [
		{ json: {}, binary: { data: binary } },
	]);
	expect(result.error?.message).toMatch(
		/^Item 0: the file "big.pdf" in binary property "data" is too large/,
	);
	expect(sb.get().control.requests()).toEqual([]);
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A PDF of `size` bytes, different on every call. */
function largePdf(size: number): Buffer {
	const bytes = Buffer.alloc(size, 0x20);
	pdfBytes().copy(bytes);
	bytes.write(`%${Math.random()}\n`, size - 40);
	return bytes;
}

/** Counts how the node reads stored files: whole (buffer) or as streams. */
function watchStore() {
	return {
		streams: jest.spyOn(service, 'getAsStream'),
		buffers: jest.spyOn(service, 'getAsBuffer'),
	};
}

const uploadPosts = () =>
	sb
		.get()
		.control.requests()
		.filter((r) => r.method === 'POST' && r.path === '/scans');

test('a stored file streams to the service: identical bytes and name, never read whole into memory', async () => {
	const content = largePdf(3 * 1024 * 1024 + 17);
	const binary = await stored(content, 'Rechnung März "3".pdf', 'application/pdf');
	const store = watchStore();
	const result = await run(sb.env(), uploadParams(), [{ json: {}, binary: { data: binary } }]);
	expect(result.error).toBeUndefined();
	const scan = sb.get().control.getScan(Number(jsonOf(result)[0].id));
	expect(scan?.contentSha256).toBe(sha256(content));
	expect(scan?.filename).toBe('Rechnung März %223%22.pdf');
	expect(store.buffers).not.toHaveBeenCalled();
	// Nothing needs the hash before sending (exact name, one document): the check reads the
	// first bytes, the upload the file.
	expect(store.streams).toHaveBeenCalledTimes(2);
});

test('with the content fingerprint the file is read twice: once for its SHA-256, once to send it', async () => {
	const content = largePdf(2 * 1024 * 1024 + 5);
	const binary = await stored(content, 'fingerprinted.pdf', 'application/pdf');
	const store = watchStore();
	const result = await run(
		sb.env(),
		uploadParams(),
		[{ json: {}, binary: { data: binary } }],
		false,
		LATEST,
	);
	expect(result.error).toBeUndefined();
	const digest = sha256(content);
	const scan = sb.get().control.getScan(Number(jsonOf(result)[0].id));
	expect(scan?.filename).toBe(`fingerprinted.ds-${digest.slice(0, 12)}.pdf`);
	expect(scan?.contentSha256).toBe(digest);
	expect(store.buffers).not.toHaveBeenCalled();
	expect(store.streams).toHaveBeenCalledTimes(2);
});

test('a re-send after a 500 before the store opens the stream again and sends the whole file', async () => {
	const content = largePdf(1024 * 1024);
	const binary = await stored(content, 'resent.pdf', 'application/pdf');
	sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'status500' });
	const store = watchStore();
	const result = await run(sb.env(), uploadParams(), [{ json: {}, binary: { data: binary } }]);
	expect(result.error).toBeUndefined();
	expect(uploadPosts().map((r) => r.status)).toEqual([500, 201]);
	// The check's first bytes, then one read per attempt.
	expect(store.streams).toHaveBeenCalledTimes(1 + 2);
	expect(sb.get().control.getScan(Number(jsonOf(result)[0].id))?.contentSha256).toBe(
		sha256(content),
	);
	expect(store.buffers).not.toHaveBeenCalled();
});

test('a re-send after an answer lost behind a created scan opens the stream again and finds that scan', async () => {
	const content = largePdf(1024 * 1024);
	const binary = await stored(content, 'lost-answer.pdf', 'application/pdf');
	sb.get().control.addFault({ method: 'POST', path: '^/scans$', kind: 'dropAfterCommit' });
	const store = watchStore();
	const result = await run(
		sb.env(),
		uploadParams(),
		[{ json: {}, binary: { data: binary } }],
		false,
		LATEST,
	);
	expect(result.error).toBeUndefined();
	// The first POST created the scan (its answer was dropped); the re-send got the 409.
	expect(uploadPosts().map((r) => r.status)).toEqual([201, 409]);
	// The SHA-256 for the fingerprint, then one read per attempt.
	expect(store.streams).toHaveBeenCalledTimes(1 + 2);
	const scan = sb.get().control.getScan(Number(jsonOf(result)[0].id));
	expect(scan?.filename).toBe(`lost-answer.ds-${sha256(content).slice(0, 12)}.pdf`);
	expect(scan?.contentSha256).toBe(sha256(content));
	expect(sb.get().control.account().used_scans).toBe(1);
});

test("the streamed SHA-256 is the bytes' hash: the same bytes in memory and on disk are recognised as one file", async () => {
	const content = largePdf(512 * 1024);
	const onDisk = await stored(content, 'copy-on-disk.pdf', 'application/pdf');
	const result = await run(
		sb.env(),
		uploadParams({ options: { onDuplicate: 'returnExisting', concurrency: 1 } }),
		[
			binaryItem(content, 'original.pdf', 'application/pdf'),
			{ json: {}, binary: { data: onDisk } },
		],
	);
	expect(result.error).toBeUndefined();
	const [first, second] = jsonOf(result);
	expect(second.id).toBe(first.id);
	expect(sb.get().control.getScan(Number(first.id))?.contentSha256).toBe(sha256(content));
	// The second item's file is the first's: it is not sent again.
	expect(uploadPosts().map((r) => r.status)).toEqual([201]);
});
