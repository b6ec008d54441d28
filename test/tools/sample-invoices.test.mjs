// node --test test/tools/ : the sample PDFs npm start and the e2e give the invoice example.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
	SAMPLE_INVOICES,
	invoicePdf,
	writeSampleInvoices,
} from '../../tools/n8n/sample-invoices.mjs';

test('each sample is a PDF whose xref table points at its objects and whose startxref points at the table', () => {
	const pdf = invoicePdf(['Invoice (test) 1', 'back\\slash']).toString('latin1');
	assert.ok(pdf.startsWith('%PDF-1.4\n'));
	assert.ok(pdf.endsWith('%%EOF\n'));
	const startxref = Number(/startxref\n(\d+)\n/.exec(pdf)[1]);
	assert.equal(pdf.slice(startxref, startxref + 5), 'xref\n');
	const entries = pdf.slice(startxref).split('\n').slice(3, 8);
	entries.forEach((entry, i) => {
		const offset = Number(entry.slice(0, 10));
		assert.equal(pdf.slice(offset, offset + `${i + 1} 0 obj`.length), `${i + 1} 0 obj`);
	});
	const length = Number(/\/Length (\d+)/.exec(pdf)[1]);
	const streamAt = pdf.indexOf('stream\n') + 'stream\n'.length;
	assert.equal(
		pdf.slice(streamAt + length, streamAt + length + '\nendstream'.length),
		'\nendstream',
	);
	assert.match(pdf, /\(Invoice \\\(test\\\) 1\)/);
});

test('writeSampleInvoices fills the folder with every sample', () => {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'invoices-'));
	try {
		const files = writeSampleInvoices(path.join(dir, 'invoices'));
		assert.deepEqual(files, SAMPLE_INVOICES.map((s) => s.file).sort());
		for (const file of files)
			assert.equal(
				readFileSync(path.join(dir, 'invoices', file))
					.subarray(0, 5)
					.toString(),
				'%PDF-',
			);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
