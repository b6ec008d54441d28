// Sample invoice PDFs for the example "Invoices → line items → ERP" in `npm start` and the e2e:
// small, valid one-page PDFs (header, objects, xref table with exact offsets, trailer), written
// into a folder n8n is allowed to read (N8N_RESTRICT_FILE_ACCESS_TO, see n8nEnv()).
// The sandbox reads their text (sandbox/engine/pdf-text.ts, sandbox/engine/document-data.ts): a scan of one of them
// returns what it says; test/sandbox/sample-documents.test.ts checks that for each.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SAMPLE_INVOICES = [
	{
		file: 'invoice-1001-acme.pdf',
		lines: [
			'ACME Office Supplies',
			'Invoice 1001',
			'Date 2024-03-04',
			'Currency EUR',
			'2 x Paper A4 box   24.00',
			'1 x Stapler         9.50',
			'Total              33.50',
		],
	},
	{
		file: 'invoice-1002-globex.pdf',
		lines: [
			'Globex Hardware',
			'Invoice 1002',
			'Date 2024-03-11',
			'Currency EUR',
			'3 x USB-C cable    29.85',
			'Total              29.85',
		],
	},
	{
		file: 'invoice-1003-initech.pdf',
		lines: [
			'Initech Services',
			'Invoice 1003',
			'Date 2024-03-18',
			'Currency EUR',
			'5 h Consulting    600.00',
			'1 x Travel         80.00',
			'Total             680.00',
		],
	},
];

const escapePdfText = (text) => text.replace(/[\\()]/g, (c) => `\\${c}`);

/** One page of text as a valid PDF 1.4 file (Helvetica, no compression). */
export function invoicePdf(lines) {
	const stream = [
		'BT',
		'/F1 12 Tf',
		'72 760 Td',
		'16 TL',
		...lines.map((l) => `(${escapePdfText(l)}) '`),
		'ET',
	].join('\n');
	const objects = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
		`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
	];
	let body = '%PDF-1.4\n';
	const offsets = [];
	objects.forEach((obj, i) => {
		offsets.push(Buffer.byteLength(body, 'latin1'));
		body += `${i + 1} 0 obj\n${obj}\nendobj\n`;
	});
	const xrefAt = Buffer.byteLength(body, 'latin1');
	body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
	body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
	return Buffer.from(body, 'latin1');
}

/** Writes the sample invoices into `dir` (created if needed); returns their file names. */
export function writeSampleInvoices(dir) {
	mkdirSync(dir, { recursive: true });
	for (const { file, lines } of SAMPLE_INVOICES)
		writeFileSync(path.join(dir, file), invoicePdf(lines));
	return readdirSync(dir)
		.filter((f) => f.endsWith('.pdf'))
		.sort();
}
