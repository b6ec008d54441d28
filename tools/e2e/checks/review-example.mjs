// e2e check of examples/scans-to-erp-with-review.json ("A person in the loop", issue 41) in a running
// real n8n (`n8n start`), on the sandbox's sample invoices (template 3, "Invoice with line items"):
//
// 1. with the Document Scanning Trigger (the example as shipped): a sample invoice that passes is
//    booked at once at the ERP stand-in (the sandbox's POST /__sandbox/bookings); one that fails
//    validation (its name holds "invalid": the sandbox's rule) waits until this check opens the
//    review form and submits it as a person would (Approve, a corrected Total), then is booked with
//    that Total; one the person rejects reaches "Rejected scans" and is never booked; a failed scan
//    (its name holds "fail") reaches the person with the service's reason; a passing one's
//    delivery, handled alone, sent again (same bytes, and signed again) books nothing twice;
// 2. the same with the Poll Trigger in place of the webhook trigger: the four scans come out of
//    one poll, in one execution, and the person reviews them in turn on the same form address.
import { exampleId, localExample } from '../../n8n/local.mjs';
import { runDataOf } from '../../n8n/rest.mjs';
import { invoicePdf, SAMPLE_INVOICES } from '../../n8n/sample-invoices.mjs';
import { deliveryKeyOf } from '../delivery-key.mjs';
import { restOf, sandboxOf, setWorkflowActive, unwrap, waitFor, webhooksAt } from './support.mjs';

const FILE = 'scans-to-erp-with-review.json';
const TRIGGER = 'Document Scanning Trigger';
const TELL = 'Tell the reviewer where the form is (replace me)';
const REJECTED = 'Rejected scans (replace me)';
const POLL_TYPE = 'n8n-nodes-document-scanning.documentScanningPollTrigger';
/** The template whose scans carry invoice fields and line items. */
const TEMPLATE = '3';
/** What the person enters as the Total of the invoice that failed validation. */
const CORRECTED_TOTAL = 31.85;

/** The items of a node's last run (an execution's run data; a loop runs a node more than once). */
function lastOutput(execution, nodeName) {
	const runs = runDataOf(execution)[nodeName] ?? [];
	return (runs.at(-1)?.data?.main?.[0] ?? []).map((item) => item.json);
}
/** How many items a node output over all its runs. */
function allOutput(execution, nodeName) {
	const runs = runDataOf(execution)[nodeName] ?? [];
	return runs.flatMap((run) => (run.data?.main?.[0] ?? []).map((item) => item.json));
}

const decode = (text) =>
	text
		.replace(/&#x27;|&#39;/g, "'")
		.replace(/&quot;/g, '"')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&#x3D;/g, '=')
		.replace(/&#x60;/g, '`')
		.replace(/&amp;/g, '&');

/**
 * The fields of an n8n form page as a browser sends them: label -> { name, value } (the value
 * pre-filled: an input's value, a textarea's text, a select's selected option).
 */
export function formFields(html) {
	const fields = {};
	for (const [, name, label] of html.matchAll(
		/<label[^>]*for=['"]([^'"]+)['"][^>]*>([^<]*)<\/label>/g,
	)) {
		const id = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		const input = new RegExp(`<input[^>]*name=['"]${id}['"][^>]*value="([^"]*)"`).exec(html);
		const area = new RegExp(`<textarea[^>]*name=['"]${id}['"][^>]*>([^<]*)</textarea>`).exec(html);
		const select = new RegExp(`<select[^>]*name=['"]${id}['"][^>]*>([\\s\\S]*?)</select>`).exec(
			html,
		);
		const selected = select && /<option value='([^']*)' selected>/.exec(select[1]);
		const value = input?.[1] ?? area?.[1] ?? selected?.[1] ?? '';
		fields[decode(label).trim()] = { name, value: decode(value).trim() };
	}
	return fields;
}

/** @param {import('./support.mjs').E2eContext} ctx */
export async function checkReviewExample(ctx) {
	const sandbox = sandboxOf(ctx);
	const rest = restOf(ctx);
	const example = localExample(FILE);
	const stamp = Date.now().toString(36);

	/** A sample invoice's PDF, made unique (a repeat is refused per template), uploaded as `filename`. */
	const upload = (sample, filename) =>
		sandbox.uploadPdf(
			filename,
			TEMPLATE,
			Buffer.concat([invoicePdf(sample.lines), Buffer.from(`% ${stamp} ${filename}\n`)]),
		);
	const [acme, globex, initech] = SAMPLE_INVOICES;
	// The passing one last: in one poll it comes after the doubtful ones and is still booked at once.
	const uploadThree = async (tag) => {
		const approved = await upload(globex, `${tag}-${globex.file.replace('.pdf', '-invalid.pdf')}`);
		const rejected = await upload(
			initech,
			`${tag}-${initech.file.replace('.pdf', '-invalid.pdf')}`,
		);
		// "fail" in the name: the sandbox fails the scan (scan.failed, with its reason).
		const failed = await upload(initech, `${tag}-${initech.file.replace('.pdf', '-fail.pdf')}`);
		return { approved, rejected, failed, passes: await upload(acme, `${tag}-${acme.file}`) };
	};
	const bookings = async () =>
		((await sandbox.control('GET', '/bookings')).body ?? []).map((b) => b.body);
	const bookedFor = async (scanId) => (await bookings()).filter((b) => b.scan_id === scanId);

	/** The executions of a workflow with their full records (finished ones read once). */
	const cache = new Map();
	const executionsOf = async (workflowId) => {
		const out = [];
		for (const e of await rest.executions(workflowId, 50)) {
			const done = e.stoppedAt && ['success', 'error', 'crashed'].includes(e.status);
			const full = done && cache.has(e.id) ? cache.get(e.id) : await rest.execution(e.id);
			if (done) cache.set(e.id, full);
			out.push(full);
		}
		return out;
	};
	/** A waiting execution whose review form is about a scan `wanted(scanId)`: the scan and the form's address. */
	const reviewOf = (workflowId, wanted) =>
		waitFor(
			async () => {
				for (const e of await executionsOf(workflowId)) {
					if (e.status !== 'waiting') continue;
					const told = lastOutput(e, TELL)[0];
					if (told?.formUrl && wanted(told.scan_id))
						return { scanId: told.scan_id, url: told.formUrl };
				}
				return undefined;
			},
			{ timeoutMs: 60_000 },
		);
	/** Opens the form as a person would, changes `values` (by label), submits it; what it showed. */
	const review = async (url, values) => {
		const page = await fetch(url);
		const html = await page.text();
		const fields = formFields(html);
		const form = new FormData();
		for (const [label, field] of Object.entries(fields))
			form.append(field.name, String(values[label] ?? field.value));
		const sent = await fetch(url, { method: 'POST', body: form });
		await sent.text();
		return { status: page.status, html, fields, submitted: sent.status };
	};

	/**
	 * The three scans through one workflow (`workflowId`); `kind` names the trigger in the checks.
	 * `ids` are the scans, uploaded by `start` (which also activates what must be active).
	 */
	const walkThrough = async (kind, workflowId, ids) => {
		const name = `example "${example.name}" with the ${kind}`;
		const passed = await waitFor(async () => (await bookedFor(ids.passes)).length > 0, {
			timeoutMs: 60_000,
		});
		const straight = (await bookedFor(ids.passes))[0];
		// Booked before any review is answered, though doubtful scans came before it.
		ctx.check(
			`${name}: a sample invoice that passes is booked at the ERP stand-in at once (before any review is answered), with the scan's values`,
			passed &&
				straight.reviewed === false &&
				straight.invoice?.total_amount === 33.5 &&
				straight.invoice?.supplier_name === 'ACME Office Supplies',
			JSON.stringify(straight ?? null).slice(0, 300),
		);

		// Three wait for the person (in turn when one poll brought them): one that failed validation
		// is approved with a corrected Total, the other rejected, and the failed scan rejected too.
		const answers = {
			[ids.approved]: { Decision: 'Approve', Total: CORRECTED_TOTAL },
			[ids.rejected]: { Decision: 'Reject' },
			[ids.failed]: { Decision: 'Reject' },
		};
		const seen = {};
		for (let turn = 0; turn < 3; turn++) {
			const waiting = await reviewOf(
				workflowId,
				(scanId) => scanId in answers && !(scanId in seen),
			);
			if (!waiting) break;
			const booked = (await bookedFor(waiting.scanId)).length;
			seen[waiting.scanId] = { ...(await review(waiting.url, answers[waiting.scanId])), booked };
		}
		const opened = seen[ids.approved];
		const shows = [
			'invoice-1002-globex-invalid.pdf',
			'Broken rule',
			'line_items 1',
			'Globex Hardware',
		];
		ctx.check(
			`${name}: a sample invoice that fails validation waits for the review form, which shows its name, fields, rows and broken rule, with Total pre-filled`,
			Boolean(opened) &&
				opened.booked === 0 &&
				opened.status === 200 &&
				shows.every((text) => opened.html.includes(text)) &&
				opened.fields.Total?.value === '29.85' &&
				opened.submitted === 200,
			opened
				? `form: HTTP ${opened.status}, fields ${JSON.stringify(opened.fields)}; missing: ${shows.filter((t) => !opened.html.includes(t)).join(', ') || 'none'}; submitted → ${opened.submitted}`
				: 'no waiting execution with its form after 60 s',
		);
		const approved = await waitFor(async () => (await bookedFor(ids.approved))[0], {
			timeoutMs: 60_000,
		});
		ctx.check(
			`${name}: approved with a corrected Total, it reaches the ERP stand-in once, with the person's Total and the scan's other values`,
			approved?.reviewed === true &&
				approved.invoice?.total_amount === CORRECTED_TOTAL &&
				approved.invoice?.supplier_name === 'Globex Hardware' &&
				Array.isArray(approved.invoice?.line_items) &&
				(await bookedFor(ids.approved)).length === 1,
			JSON.stringify(approved ?? null).slice(0, 300),
		);

		// Both rejected (the one that failed validation, the failed scan) end in "Rejected scans".
		const rejectedItems = async () => {
			const done = (await executionsOf(workflowId)).filter((e) => e.status === 'success');
			return done.flatMap((e) => allOutput(e, REJECTED)).filter((i) => i.Decision === 'Reject');
		};
		const ended = await waitFor(async () => (await rejectedItems()).length >= 2, {
			timeoutMs: 60_000,
		});
		const reason = unwrap((await sandbox.api(`/scans/${ids.failed}`)).body)?.error_message;
		const failed = seen[ids.failed];
		ctx.check(
			`${name}: a failed scan (scan.failed) reaches the person too, with the service's reason`,
			Boolean(reason) &&
				failed?.status === 200 &&
				failed.html.includes(`The service could not read it: ${reason}`) &&
				failed.submitted === 200,
			failed ? `form HTTP ${failed.status}; reason "${reason}"` : 'no form for it after 60 s',
		);
		const rejectedBookings =
			(await bookedFor(ids.rejected)).length + (await bookedFor(ids.failed)).length;
		const named = (await rejectedItems()).filter((i) =>
			[ids.rejected, ids.failed].includes(i.scan_id),
		);
		const failedItem = named.find((i) => i.scan_id === ids.failed);
		ctx.check(
			`${name}: the rejected items carry the scan's identity (scan_id, file name, deliveryKey, reason) besides the answers`,
			named.length >= 2 &&
				named.every((i) => i.filename && i.deliveryKey && i.reason) &&
				failedItem?.reason === reason,
			JSON.stringify(named).slice(0, 400),
		);
		ctx.check(
			`${name}: the rejected ones reach "${REJECTED}" and never the ERP stand-in`,
			seen[ids.rejected]?.submitted === 200 && ended && rejectedBookings === 0,
			`form submitted → ${seen[ids.rejected]?.submitted ?? 'no form'}; items in "${REJECTED}": ${(await rejectedItems()).length} of 2; bookings of scans ${ids.rejected} and ${ids.failed}: ${rejectedBookings}`,
		);
	};

	await sandbox.control('DELETE', '/bookings');

	// ---- 1. the example as shipped: the webhook trigger -----------------------------------------
	const id = exampleId(FILE);
	const webhookPath = example.nodes.find((n) => n.name === TRIGGER)?.webhookId;
	const activated = await setWorkflowActive(ctx, id, true);
	// The trigger's own webhook (not a key carrier, where there is one), once n8n saved its static
	// data: on 2.x activation ends after the REST call returns.
	const hook = await waitFor(async () => {
		const own = (await webhooksAt(ctx, `/webhook/${webhookPath}/`)).find(
			(h) => !String(h.url).includes('ds_seal='),
		);
		const saved = (await rest.workflow(id))?.staticData?.[`node:${TRIGGER}`]?.webhookId;
		return own && String(saved) === String(own.id) ? own : undefined;
	});
	if (
		!ctx.check(
			`example "${example.name}": activation registers its webhook`,
			activated.ok && hook,
			hook?.url ?? `HTTP ${activated.status}; no webhook with saved static data after 30 s`,
		)
	)
		return;
	await sandbox.control('DELETE', '/deliveries');
	// scan.failed in the shape with no `data` (the scan's fields next to `event`): the form and the
	// rejected item still name the scan (reviewOf finds its form by scan_id).
	const shape = (await sandbox.control('GET', '/options')).body?.failedBody ?? 'scan_id';
	await sandbox.control('POST', '/options', { failedBody: 'topLevel' });
	const hooked = await uploadThree(`hook-${stamp}`);
	await walkThrough(
		'Document Scanning Trigger (scan.failed with its fields at the top level)',
		id,
		hooked,
	);
	await sandbox.control('POST', '/options', { failedBody: shape });

	// A passing invoice's delivery handled alone, then sent again: the same bytes, and signed again
	// with a new timestamp. (Alone: n8n keeps Remove Duplicates' history in one database record it
	// reads and rewrites without a lock, so deliveries handled at the same moment, as the four
	// above, can lose each other's keys; the README says so.)
	const quiet = async () =>
		(await executionsOf(id)).every((e) => !['new', 'running'].includes(e.status));
	const once = await upload(acme, `hook-${stamp}-once-${acme.file}`);
	await waitFor(async () => (await bookedFor(once)).length > 0 && (await quiet()), {
		timeoutMs: 60_000,
	});
	const deliveries = (await sandbox.control('GET', '/deliveries')).body ?? [];
	const index = deliveries.findIndex((d) => d.webhookId === hook.id && d.scanId === once);
	const key = index >= 0 ? deliveryKeyOf(deliveries[index].body) : undefined;
	const repeats = [
		...((await sandbox.control('POST', '/deliveries/repeat', { index })).body ?? []),
		...((await sandbox.control('POST', '/deliveries/repeat', { index, restamp: true })).body ?? []),
	];
	// A sentinel after the repeats: once it is booked and no execution runs, the repeats' have ended.
	const sentinel = await upload(acme, `hook-${stamp}-sentinel-${acme.file}`);
	const settled = await waitFor(
		async () => (await bookedFor(sentinel)).length > 0 && (await quiet()),
		{
			timeoutMs: 60_000,
		},
	);
	const runs = (await executionsOf(id)).filter(
		(e) => lastOutput(e, TRIGGER)[0]?.deliveryKey === key,
	);
	const booked = (await bookedFor(once)).length;
	ctx.check(
		`example "${example.name}": a passing invoice's delivery sent again (same bytes, and signed again) books nothing twice`,
		index >= 0 &&
			repeats.length === 2 &&
			repeats.every((r) => r.status === 200) &&
			Boolean(settled) &&
			booked === 1,
		`repeats → ${repeats.map((r) => r.status ?? r.error).join(', ')}; executions with ${key}: ${runs.length} (items past "Drop repeated deliveries": ${runs.map((e) => lastOutput(e, 'Drop repeated deliveries').length).join(' + ')}); bookings of scan ${once}: ${booked}`,
	);
	await setWorkflowActive(ctx, id, false);
	await waitFor(async () => (await webhooksAt(ctx, `/webhook/${webhookPath}/`)).length === 0);

	// ---- 2. the same workflow with the Poll Trigger in place of the webhook trigger -------------
	const poll = {
		parameters: {
			pollTimes: { item: [{ mode: 'everyHour' }] },
			events: ['scan.completed', 'scan.failed'],
			options: {},
		},
		id: 'e2e00000-0000-4000-8000-0000000041a1',
		name: 'Document Scanning Poll Trigger',
		type: POLL_TYPE,
		typeVersion: 1,
		position: [0, 300],
		credentials: { documentScanningApi: { id: ctx.credential.id, name: ctx.credential.name } },
	};
	const { [TRIGGER]: triggerLinks, ...links } = example.connections;
	const created = await rest.request('POST', 'workflows', {
		name: `e2e: ${example.name} (poll trigger) ${stamp}`,
		nodes: [poll, ...example.nodes.filter((n) => n.name !== TRIGGER)].map((n) =>
			n.name === 'Settings' ? withErpUrl(n, ctx.sandboxBaseUrl) : n,
		),
		connections: { ...links, [poll.name]: triggerLinks },
		settings: example.settings,
		active: false,
	});
	const pollId = created.body?.data?.id;
	if (
		!ctx.check(
			`example "${example.name}" with the Poll Trigger: created`,
			Boolean(pollId),
			`HTTP ${created.status} ${created.ok ? '' : JSON.stringify(created.body).slice(0, 300)}`,
		)
	)
		return;
	// The first activation starts from now; its state saved, deactivated; the scans finish; the
	// next activation's poll brings the three at once.
	await setWorkflowActive(ctx, pollId, true);
	await waitFor(
		async () =>
			(await rest.workflow(pollId))?.staticData?.[`node:${poll.name}`]?.horizon !== undefined,
	);
	await setWorkflowActive(ctx, pollId, false);
	const polled = await uploadThree(`poll-${stamp}`);
	await waitFor(async () => {
		const statuses = await Promise.all(
			Object.values(polled).map(
				async (sid) => unwrap((await sandbox.api(`/scans/${sid}`)).body)?.status,
			),
		);
		return statuses.every((s) => ['completed', 'validation_failed', 'failed'].includes(s));
	});
	await setWorkflowActive(ctx, pollId, true);
	await walkThrough('Poll Trigger', pollId, polled);
	await setWorkflowActive(ctx, pollId, false);
}

/** The Settings node with the ERP stand-in's URL at this sandbox (the import does it for the shipped copy). */
function withErpUrl(node, sandboxBaseUrl) {
	const text = JSON.stringify(node).replaceAll(
		'http://localhost:8787',
		new URL(sandboxBaseUrl).origin,
	);
	return JSON.parse(text);
}
