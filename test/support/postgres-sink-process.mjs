// Runs the Postgres example's own SQL in PostgreSQL (PGlite, in a process of its own: its WASM
// loader needs a real ES module context, which jest's does not give). Reads JSON from stdin:
// `{ workflow, runs }`, the example workflow and each execution's trigger items in arrival order.
// For each item, as the example's nodes do: "Record the result once", "Book in the ERP" for each
// row it returned, "Keep the latest result of each scan". Prints the sink's tables as JSON.
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';

const { workflow, runs } = JSON.parse(readFileSync(0, 'utf8'));
const node = (name) => workflow.nodes.find((n) => name.test(n.name));
/** An n8n expression `={{ … }}` of plain JavaScript over `$json`, for one item. */
const params = (n, json) =>
	new Function(
		'$json',
		`return (${n.parameters.options.queryReplacement.replace(/^=\{\{([\s\S]*)\}\}$/, '$1')});`,
	)(json);

const db = new PGlite();
await db.exec(
	workflow.nodes.find((n) => /CREATE TABLE/.test(n.parameters.query ?? '')).parameters.query,
);
const [record, book, latest] = [
	/^Record the result once/,
	/^Book in the ERP/,
	/^Keep the latest/,
].map(node);
for (const items of runs)
	for (const json of items) {
		const inserted = await db.query(record.parameters.query, params(record, json));
		for (const row of inserted.rows) await db.query(book.parameters.query, params(book, row));
		await db.query(latest.parameters.query, params(latest, json));
	}
const state = await db.query('SELECT scan_id::int AS scan_id, status FROM scan_latest');
const booked = await db.query('SELECT delivery_key, status FROM erp_bookings ORDER BY id');
process.stdout.write(JSON.stringify({ latest: state.rows, booked: booked.rows }));
await db.close();
