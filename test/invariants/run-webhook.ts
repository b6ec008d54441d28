/**
 * Runs a webhook case: the webhook trigger activated and fed real, signed deliveries from the
 * sandbox through a loopback receiver, with n8n's webhook processes played faithfully
 * (test/trigger/webhook-processes.ts: every request loads the static data, the node runs on
 * that copy, the copy is written back whole). Steps: results finishing (some delivered minutes
 * or hours late), deliveries sent again (the same bytes, signed anew, copies at once), scans
 * processed again, re-activations, and a re-activation while a delivery's full-scan read is
 * held. At the end a new result is delivered: the trigger must still verify and run it
 * (invariant 8). Also observed: static data written by a delivery, the webhooks at the trigger's
 * URL after each activation, and requests to the service caused by forged deliveries.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY, type Outcome, type Sandbox } from '../../sandbox/server';
import { signatureHeader } from '../../sandbox/signing';
import { startReceiver } from '../support/receiver';
import { postScan } from '../support/sandbox-api';
import { TriggerHarness, type WebhookCallResult } from '../support/trigger-harness';
import type { IncomingMessageWithBody } from '../support/webhook-request';
import { StaticDataDatabase, WebhookProcess } from '../trigger/webhook-processes';
import type { WebhookCase, WebhookStep } from './cases';
import { type DeliveredResult, type Execution, type Observation, until } from './execution';
import { observeWire } from './observe';
import { wanted } from './run-poll';
import { toleranceSeconds, triggerParameters } from './settings';
import { applyWorld } from './worlds';

interface Handled {
	body: string;
	result: WebhookCallResult;
	startedMs: number;
	endedMs: number;
	/** Signed with the secret of a webhook the service no longer held when it arrived. */
	retired: boolean;
	/** How far the signed timestamp lay behind this machine's clock when it arrived. */
	ageMs: number;
}

/** The signed timestamp's age at `nowMs`; 0 when the body has none. */
function ageOf(raw: string, nowMs: number): number {
	try {
		const { timestamp } = JSON.parse(raw.replace(/^\uFEFF/, '')) as IDataObject;
		const at = Date.parse(String(timestamp));
		return Number.isFinite(at) ? nowMs - at : 0;
	} catch {
		return 0;
	}
}

/** The result a delivery carries: its body without the send's own stamps. */
export function resultIdentity(raw: string): { identity: string; status: string } {
	try {
		const {
			timestamp: _t,
			webhook_id: _w,
			...rest
		} = JSON.parse(raw.replace(/^\uFEFF/, '')) as IDataObject;
		const data = (rest.data ?? rest) as IDataObject;
		return { identity: JSON.stringify(rest), status: String(data.status ?? '') };
	} catch {
		return { identity: raw, status: '' };
	}
}

export async function runWebhookCase(sandbox: Sandbox, c: WebhookCase): Promise<Observation> {
	const { control } = sandbox;
	applyWorld(sandbox, c.world);
	control.setOptions({ allowInsecureWebhookUrls: true });
	const handled: Handled[] = [];
	const database = new StaticDataDatabase();
	const harnessFor = (staticData: IDataObject) =>
		TriggerHarness.create({
			parameters: triggerParameters(c.settings, true),
			env: { baseUrl: sandbox.baseUrl, apiKey: DEFAULT_API_KEY, authHeader: c.world.authHeader },
			webhookBaseUrl: receiver.baseUrl,
			staticData,
			typeVersion: c.settings.version ?? 1,
		});
	const process = new WebhookProcess(database, harnessFor);
	const receiver = await startReceiver(() => ({
		deliver: async (request: IncomingMessageWithBody, response) => {
			const startedMs = Date.now();
			const body = request.rawBody.toString('utf8');
			const signature = String(request.headers['x-service-signature'] ?? '');
			let retired = true;
			for (let id = 1; id <= 100; id++) {
				const hook = control.getWebhook(id);
				if (hook && signatureHeader(hook.secret, body) === signature) retired = false;
			}
			const result = await process.deliver(request, response);
			handled.push({
				body,
				result,
				startedMs,
				endedMs: Date.now(),
				retired,
				ageMs: ageOf(body, startedMs),
			});
			return result;
		},
	}));
	const wire = observeWire();
	const logStart = control.requests().length;
	const started = Date.now();
	let activations = 0;
	let problem: string | undefined;
	let lastDelivery: Observation['lastDelivery'];
	const trigger = { deliveryWrites: 0, webhooksAtUrl: [] as number[], forgedRequests: 0 };
	const activate = async () => {
		await process.activate();
		let count = 0;
		for (let id = 1; id <= 100; id++)
			if (String(control.getWebhook(id)?.url ?? '').startsWith(receiver.baseUrl)) count++;
		trigger.webhooksAtUrl.push(count);
	};
	try {
		await activate();
		activations++;
		const settle = async () => {
			await until(() => handled.length >= control.deliveries().length, 20_000);
		};
		/** Webhooks that receive `event` now. */
		const subscribers = (event: string) => {
			let count = 0;
			for (let id = 1; id <= 100; id++) {
				const hook = control.getWebhook(id);
				if (hook?.active && hook.events.includes(event as never)) count++;
			}
			return count;
		};
		/** Waits until every webhook subscribed has had the scan's delivery, or one is held. */
		const delivered = async (scanId: number, event: string, expected: number, held = false) =>
			await until(
				() =>
					control.deliveries().filter((d) => d.scanId === scanId && d.event === event).length >=
						expected ||
					(held && control.heldRequests() > 0),
				10_000,
			);
		const upload = async (outcome: Outcome, n: number, held = false) => {
			const name = { completed: 'doc', validation_failed: 'invalid', failed: 'fail' }[outcome];
			const event = outcome === 'failed' ? 'scan.failed' : 'scan.completed';
			const expected = subscribers(event);
			const reply = await postScan(sandbox, {
				filename: `${name}-${n}.pdf`,
				file: Buffer.from(`%PDF-1.4\n% webhook ${n}\n%%EOF\n`),
			});
			if (reply.status !== 201) throw new Error(`upload answered ${reply.status}`);
			const created = reply.body as { id?: unknown; data?: { id?: unknown } };
			await delivered(Number(created.data?.id ?? created.id), event, expected, held);
		};
		const reactivate = async () => {
			const main = await harnessFor(database.read());
			await main.hook('delete');
			await database.write(main.staticData);
			await activate();
			activations += 2;
		};
		for (const [n, step] of c.steps.entries()) {
			await runStep(step, n);
			await settle();
		}
		// The last word: a new result after every step; it must be verified and run.
		control.setOptions({ deliveryLateMs: 0 });
		const last = c.settings.events.includes('scan.completed') ? 'completed' : 'failed';
		const count = handled.length;
		await upload(last, 1000);
		await settle();
		const answer = handled[count];
		lastDelivery = answer
			? {
					status: answer.result.status,
					executed: answer.result.workflowData !== undefined,
					body: JSON.stringify(answer.result.body),
				}
			: { status: 0, executed: false, body: 'no delivery reached the trigger' };
		// Forged requests to the trigger's URL: 401, and no request to the service.
		const stored = database.read()['node:Document Scanning Trigger'] as IDataObject | undefined;
		const before = control.requests().length;
		const handledBefore = handled.length;
		for (const secret of ['', 'whsec_forged']) {
			const raw = JSON.stringify({ event: 'scan.completed', timestamp: new Date().toISOString() });
			await fetch(String(stored?.webhookUrl), {
				method: 'POST',
				headers: {
					'Content-Type': 'application/json',
					'X-Service-Signature': signatureHeader(secret || 'x', raw),
				},
				body: raw,
			}).catch(() => undefined);
		}
		await until(() => handled.length >= handledBefore + 2, 10_000);
		trigger.forgedRequests = control.requests().length - before;
		handled.splice(handledBefore);

		async function runStep(step: WebhookStep, n: number) {
			switch (step.do) {
				case 'scan':
					control.setOptions({ deliveryLateMs: step.lateMin * 60_000 });
					await upload(step.outcome, n);
					return;
				case 'repeat': {
					const index = control.deliveries().length - 1 - step.back;
					if (index < 0) return;
					await control
						.repeatDelivery({ index, restamp: step.restamp, copies: step.copies })
						.catch(() => undefined);
					return;
				}
				case 'reprocess': {
					const delivery = control.deliveries()[control.deliveries().length - 1 - step.back];
					if (!delivery?.scanId) return;
					const event = step.outcome === 'failed' ? 'scan.failed' : 'scan.completed';
					const expected = subscribers(event);
					const before = control
						.deliveries()
						.filter((d) => d.scanId === delivery.scanId && d.event === event).length;
					control.reprocessScan(delivery.scanId, step.outcome);
					await delivered(delivery.scanId, event, before + expected);
					return;
				}
				case 'reactivate':
					await reactivate();
					return;
				case 'reactivateWhileHeld': {
					control.addFault({ method: 'GET', path: '^/scans/\\d+$', kind: 'hold' });
					await upload(step.outcome, n, c.settings.includeFullScan);
					await reactivate();
					control.releaseHeld();
					control.clearFaults();
					return;
				}
			}
		}
	} catch (error) {
		problem = (error as Error).message;
	} finally {
		trigger.deliveryWrites = process.deliveryWrites;
		wire.stop();
		control.clearFaults();
		control.releaseHeld();
		await receiver.close();
	}

	const requests = control.requests().slice(logStart);
	const delivered = results(handled, c);
	const attempts = control.deliveries().length;
	const execution: Execution = {
		label: 'webhook deliveries',
		op: 'webhook',
		items: handled.flatMap((h) => (h.result.workflowData?.[0] ?? []).map((item) => item.json)),
		paired: [],
		inputs: 0,
		continueOnFail: false,
		...(problem ? { error: { message: `The case could not run: ${problem}` } } : {}),
		timedOut: false,
		boundMs: 0,
		elapsedMs: Date.now() - started,
		requests,
		wire: wire.events,
		records: {},
		/**
		 * Invariant 9, webhook trigger: API requests at most D + 5·A: one full-scan read per
		 * delivery (D deliveries) and at most 5 for each activation or deactivation (A).
		 */
		requestBound: {
			limit: attempts + 5 * activations,
			count: requests.filter((r) => !(r.method === 'POST' && r.path === '/scans')).length,
			what: 'API requests besides the uploads that made the results',
			formula: `D=${attempts} + 5·A=${activations}`,
		},
	};
	return { executions: [execution], delivered, lastDelivery, trigger };
}

/**
 * Every distinct result delivered to the trigger's own webhook, what its deliveries got and how
 * many executions it started. A delivery is late when its signed timestamp lies beyond the
 * replay tolerance of the trigger's version (with 10 s of margin either way for a slow machine).
 */
function results(handled: Handled[], c: WebhookCase): DeliveredResult[] {
	const tolerance = toleranceSeconds(c.settings) * 1000;
	const byResult = new Map<string, { status: string; items: Handled[] }>();
	for (const h of handled) {
		const { identity, status } = resultIdentity(h.body);
		const entry = byResult.get(identity) ?? { status, items: [] };
		entry.items.push(h);
		byResult.set(identity, entry);
	}
	const answer = (h: Handled) => `${h.result.status} ${JSON.stringify(h.result.body)}`;
	return [...byResult.entries()].map(([identity, { status, items }]) => {
		const late = items.filter((h) => h.ageMs > tolerance + 10_000);
		return {
			identity,
			wanted: wanted(c.settings, status),
			deliveries: items.length,
			timely: items.filter((h) => !h.retired && h.ageMs < tolerance - 10_000).length,
			retiredRun: items.filter((h) => h.retired && h.result.workflowData !== undefined).length,
			overlapped: items.some((a) =>
				items.some((b) => a !== b && a.startedMs < b.endedMs && b.startedMs < a.endedMs),
			),
			executions: items.filter((h) => h.result.workflowData !== undefined).length,
			answers: items.map(answer),
			lateRun: late.filter((h) => h.result.workflowData !== undefined).length,
			lateRefused: late.filter((h) => h.result.status >= 300).map(answer),
		};
	});
}
