// node --test test/tools/ : the banner npm start prints.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { startBanner } from '../../tools/n8n/start-banner.mjs';

const input = (overrides = {}) => ({
	version: '1.123.81',
	otherVersion: '2.40.7',
	readySeconds: 17,
	n8nUrl: 'http://localhost:5678/',
	owner: { email: 'owner@example.com', password: 'Local-n8n-1', skipped: false, created: true },
	workflows: [
		'Daily scan credit check',
		'Invoices → line items → ERP',
		'React to finished and failed scans',
	],
	credential: { id: '1', name: 'Document Scanning sandbox' },
	sandboxBaseUrl: 'http://127.0.0.1:8787/api/v1',
	apiKey: 'sk_test_sandbox_key',
	invoices: ['a.pdf', 'b.pdf', 'c.pdf'],
	invoicesDir: path.join('/repo', '.n8n-local', 'files', 'invoices'),
	root: '/repo',
	...overrides,
});

test('says once that all examples start inactive, and no workflow name carries "(inactive)"', () => {
	const lines = startBanner(input());
	const text = lines.join('\n');
	assert.equal(text.match(/inactive/g).length, 1);
	assert.match(text, /all inactive and reset to examples\/ at every start/);
	for (const name of input().workflows) assert.ok(lines.includes(`             - ${name}`), name);
});

test('prints where to log in, the sample files and which data is real', () => {
	const text = startBanner(input()).join('\n');
	assert.match(text, /Log in: {4}owner@example\.com \/ Local-n8n-1/);
	assert.match(text, /3 sample invoices in \.n8n-local\/files\/invoices\//);
	assert.match(text, /sample invoices, gives what it says;\n\s+any other file gives invented data/);
	assert.match(
		startBanner(input({ owner: { skipped: true } })).join('\n'),
		/first open asks you to create the owner account/,
	);
});

test('says what the other n8n version is and how to start it', () => {
	const text = startBanner(input()).join('\n');
	assert.match(
		text,
		/n8n 2\.x: {3}the nodes work on n8n 1\.x and 2\.x; to try 2\.x instead: npm start -- --n8n 2\.40\.7/,
	);
	assert.doesNotMatch(text, /Other line/);
});
