// The README's first workflow, as examples/first-scan.json holds it, in real n8n: read the sample
// invoices, Scan → Upload with Wait for Completion and Output = Extracted Fields, then an Edit Fields
// (Set) node that uses the fields. Each sample invoice gives its own supplier, number and total.
import { exampleId } from '../../n8n/local.mjs';
import { SAMPLE_INVOICES } from '../../n8n/sample-invoices.mjs';
import { execute } from './run-example.mjs';
import { nodeItems } from './support.mjs';

/** What a sample invoice says, as the example's Set node writes it. */
function bookingOf({ lines }) {
	const number = /^Invoice (\S+)/.exec(lines.find((l) => l.startsWith('Invoice ')) ?? '')?.[1];
	const total = Number(/([\d.]+)$/.exec(lines.find((l) => l.startsWith('Total')) ?? '')?.[1]);
	const currency = /^Currency (\S+)/.exec(lines.find((l) => l.startsWith('Currency ')) ?? '')?.[1];
	return `${lines[0]}: invoice ${number}, ${total} ${currency}`;
}

export async function firstScan(ctx) {
	const { run, ok, detail } = await execute(ctx, exampleId('first-scan.json'));
	const fields = nodeItems(run, 'Scan the invoice');
	const bookings = nodeItems(run, 'Use the fields').map((item) => item.booking);
	const expected = SAMPLE_INVOICES.map(bookingOf);
	ctx.check(
		"the README's first workflow (examples/first-scan.json): upload, wait, Extracted Fields, the fields used in the next node",
		ok &&
			fields.every((f) => f.status === 'completed' && typeof f.scan_id === 'number') &&
			JSON.stringify([...bookings].sort()) === JSON.stringify([...expected].sort()),
		`${detail}; ${bookings.join(' | ')}`,
	);
}
