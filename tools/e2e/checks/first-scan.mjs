// The README's first workflow, as examples/first-scan.json holds it, in real n8n at its default file
// access (`n8n start` runs without N8N_RESTRICT_FILE_ACCESS_TO: 2.x reads only ~/.n8n-files, 1.x
// any folder; e2e.mjs): the workflow is activated, and each sample invoice is sent to the form's
// production URL as a browser sends it (multipart/form-data, the file in `field-0`). Each
// submission's execution uploads the file, waits, and the Edit Fields node writes the invoice's
// supplier, number and total from the Extracted Fields.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { exampleId } from '../../n8n/local.mjs';
import { nodeOutput } from '../../n8n/rest.mjs';
import { SAMPLE_INVOICES } from '../../n8n/sample-invoices.mjs';
import { restOf, setWorkflowActive, waitFor } from './support.mjs';

/** What a sample invoice says, as the example's Edit Fields node writes it. */
function bookingOf({ lines }) {
	const number = /^Invoice (\S+)/.exec(lines.find((l) => l.startsWith('Invoice ')) ?? '')?.[1];
	const total = Number(/([\d.]+)$/.exec(lines.find((l) => l.startsWith('Total')) ?? '')?.[1]);
	const currency = /^Currency (\S+)/.exec(lines.find((l) => l.startsWith('Currency ')) ?? '')?.[1];
	return `${lines[0]}: invoice ${number}, ${total} ${currency}`;
}

/** @param {import('./support.mjs').E2eContext} ctx */
export async function firstScan(ctx) {
	const id = exampleId('first-scan.json');
	const rest = restOf(ctx);
	const label = "the README's first workflow (examples/first-scan.json)";
	const activated = await setWorkflowActive(ctx, id, true);
	const restricted = ctx.serverEnv?.N8N_RESTRICT_FILE_ACCESS_TO;
	ctx.check(
		`${label} activates in n8n started with its default file access`,
		activated.ok && restricted === undefined,
		`HTTP ${activated.status}; N8N_RESTRICT_FILE_ACCESS_TO ${restricted === undefined ? 'unset' : `"${restricted}"`}`,
	);
	if (!activated.ok) return;
	const formUrl = new URL('form/first-scan', ctx.n8nUrl);
	try {
		// 2.x finishes an activation after the REST call returns: the form is there once it renders.
		const formShown = async () => {
			const res = await fetch(formUrl);
			await res.arrayBuffer();
			return res.ok || undefined;
		};
		await waitFor(formShown, { timeoutMs: 30_000 });
		const answers = [];
		for (const { file } of SAMPLE_INVOICES) {
			const form = new FormData();
			const pdf = readFileSync(path.join(ctx.filesDir, 'invoices', file));
			form.append('field-0', new Blob([pdf], { type: 'application/pdf' }), file);
			const res = await fetch(formUrl, {
				method: 'POST',
				body: form,
			});
			answers.push(`${file}: HTTP ${res.status}`);
			await res.arrayBuffer();
		}
		const executions = await waitFor(
			async () => {
				const list = await rest.executions(id);
				const done = list.filter(
					(e) => e.stoppedAt || ['success', 'error', 'crashed'].includes(e.status),
				);
				return done.length >= SAMPLE_INVOICES.length ? done : undefined;
			},
			{ timeoutMs: 60_000, intervalMs: 500 },
		);
		const records = await Promise.all((executions ?? []).map((e) => rest.execution(e.id)));
		const fields = records.flatMap((r) => nodeOutput(r, 'Scan the invoice'));
		const bookings = records.flatMap((r) => nodeOutput(r, 'Use the fields')).map((i) => i.booking);
		const expected = SAMPLE_INVOICES.map(bookingOf);
		ctx.check(
			`${label}: each invoice sent through the form is uploaded, waited for, and its fields used in the next node`,
			records.length === SAMPLE_INVOICES.length &&
				records.every((r) => r.status === 'success') &&
				fields.every((f) => f.status === 'completed' && typeof f.scan_id === 'number') &&
				JSON.stringify([...bookings].sort()) === JSON.stringify([...expected].sort()),
			`${answers.join(', ')}; ${records.map((r) => r.status).join(', ') || 'no execution'}; ${bookings.join(' | ')}`,
		);
	} finally {
		await setWorkflowActive(ctx, id, false);
	}
}
