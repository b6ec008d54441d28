/**
 * The check before the first upload of a batch: the account's credit (GET /account) and the
 * last hour's uploads (GET /scans, service clock) decide how many new uploads fit. Documents
 * whose scan the hour's listing shows (proven by the content fingerprint) need no upload, no
 * credit and no slot; when the batch still does not fit, the templates' listings are read from
 * the top for more such proof, so a batch of new documents costs no more than the hour's pages.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, PAGE_SIZE } from '../../shared/transport';
import { goesOnAfterFailure } from '../execution/tool';
import type { NotCounted } from './budget/errors';
import { batchTooLargeError } from './budget/errors';
import { LimitsGate } from './budget/gate';
import type { Plan } from './budget/plan';
import { planBudget } from './budget/plan';
import { readHourWindow, SERVICE_HOURLY_LIMIT } from './budget/window';
import type { PreparedUpload } from './prepare';
import type { TemplateIndexes } from './templateScans';

/** Pages the proof read goes on after the pages the batch's documents fill (see below). */
const PROOF_EXTRA_PAGES = 2;

export interface Precheck {
	gate: LimitsGate;
	/** Documents the service provably has already, by item: their scan. */
	known: Map<number, IDataObject>;
}

/**
 * `leads`: the batch's uploads, one per file, in item order; `repeats`: the other items. A batch
 * that does not fit fails here without Continue On Fail; with it, the gate holds back the rest.
 */
export async function checkBeforeUploads(
	ctx: IExecuteFunctions,
	leads: PreparedUpload[],
	repeats: number,
	hourlyLimit: number,
	indexes: TemplateIndexes,
): Promise<Precheck> {
	const known = new Map<number, IDataObject>();
	// One document needs no check (a refused upload uses no credit, and its error says why),
	// unless the node keeps to a lower hourly limit than the service's.
	if (leads.length === 0 || (leads.length === 1 && hourlyLimit >= SERVICE_HOURLY_LIMIT))
		return { gate: new LimitsGate(hourlyLimit), known };

	const account = apiRequest.call(ctx, { method: 'GET', path: '/account' });
	const hour = readHourWindow.call(ctx);
	// Both settle before a failure is thrown: no request of the execution goes on after it ended.
	await Promise.allSettled([account, hour]);
	const [balance, window] = await Promise.all([account, hour]);
	const templates = new Set(leads.map((upload) => upload.templateId));
	indexes.addAll(window.scans, templates);
	const remaining = balance.remaining_scans === null ? NaN : Number(balance.remaining_scans);
	const credits = Number.isFinite(remaining) ? remaining : undefined;
	const plan = (): Plan => {
		known.clear();
		for (const upload of leads) {
			const scan = indexes.of(upload.templateId).onlyProven(upload.fingerprint);
			if (scan) known.set(upload.itemIndex, scan);
		}
		return planBudget(
			{ credits, hourlyLimit, serverNow: window.serverNow, times: window.times },
			leads.length - known.size,
		);
	};

	let current = plan();
	// Not enough: unproven documents may have older scans, most likely near the top. Each
	// template's listing is read while the batch does not fit, for the pages its documents fill
	// and two more, one more per page that proved a document; one still unproven counts as new
	// (if it is not, its upload is answered 409: no credit either way).
	for (const templateId of templates) {
		if (current.fits >= current.documents) break;
		const unproven = leads.filter(
			(upload) =>
				upload.templateId === templateId &&
				upload.fingerprint !== undefined &&
				!known.has(upload.itemIndex),
		);
		if (unproven.length === 0) continue;
		let pages = 0;
		let budget = Math.ceil(unproven.length / PAGE_SIZE) + PROOF_EXTRA_PAGES;
		let proven = known.size;
		await indexes.of(templateId).readUntil(
			ctx,
			() => {
				current = plan();
				if (known.size > proven) budget++;
				proven = known.size;
				return (
					current.fits >= current.documents ||
					unproven.every((upload) => known.has(upload.itemIndex)) ||
					pages++ >= budget
				);
			},
			{ templateId, itemIndex: unproven[0].itemIndex, fileName: unproven[0].file.fileName },
		);
		current = plan();
	}

	if (current.fits >= current.documents)
		return { gate: new LimitsGate(hourlyLimit, undefined, window.times), known };
	const notCounted: NotCounted = { alreadyScanned: known.size, repeats };
	const documents = leads.length + repeats;
	if (!goesOnAfterFailure(ctx))
		throw batchTooLargeError(ctx.getNode(), current, hourlyLimit, documents, notCounted);
	return { gate: new LimitsGate(hourlyLimit, current, window.times), known };
}
