/**
 * Uploads from n8n's filesystem binary mode: the item holds only an ID, the file lives on
 * disk, and the node reads it through n8n's binary helpers (size from the metadata first).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IBinaryData } from 'n8n-workflow';

import { jsonOf, pdfBytes, rl, run, useSandbox } from './helpers';

const sb = useSandbox();
let storage: string;
let service: BinaryDataService;

beforeAll(async () => {
	storage = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-binary-'));
	const config = { mode: 'filesystem', availableModes: ['filesystem'], localStoragePath: storage, signingSecret: 'test' };
	const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };
	service = new BinaryDataService(config as never, { error: () => {} } as never, quiet as never);
	await service.init();
	Container.set(BinaryDataService, service);
});

afterAll(() => {
	fs.rmSync(storage, { recursive: true, force: true });
});

async function stored(content: Buffer, fileName: string, mimeType: string): Promise<IBinaryData> {
	const binary = await service.store({ type: 'execution', workflowId: 'wf', executionId: '1' }, content, {
		data: '',
		mimeType,
		fileName,
	} as IBinaryData);
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
	expect(jsonOf(result)[0]).toEqual(expect.objectContaining({ filename: 'on-disk.pdf', status: 'uploaded' }));
	expect(sb.get().control.getScan(1)?.contentSha256).toBeDefined();
});

test('an oversized file on disk is refused from its metadata, before any request', async () => {
	const big = Buffer.concat([Buffer.from('%PDF'), Buffer.alloc(20 * 1024 * 1024)]);
	const binary = await stored(big, 'big.pdf', 'application/pdf');
	const result = await run(sb.env(), { resource: 'scan', operation: 'upload', templateId: rl(1) }, [
		{ json: {}, binary: { data: binary } },
	]);
	expect(result.error?.message).toMatch(/^Item 0: the file "big.pdf" in binary property "data" is too large/);
	expect(sb.get().control.requests()).toEqual([]);
});
