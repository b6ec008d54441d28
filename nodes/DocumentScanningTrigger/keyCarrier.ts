import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'crypto';
import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { apiRequestFull, apiRequestList, CREDENTIAL_TYPE, unwrapRecord } from '../shared/transport';

/**
 * The signing secret kept at the service, where no write-back of static data can undo it (issue
 * 33 §1). The service shows a secret only in the answer that creates the webhook, once its URL is
 * fixed, so a second webhook made right after carries it: the key carrier, `<node URL>?ds_seal=
 * <ID and secret of the first, AES-256-GCM>`, on `scan.failed` (events may not be empty); its
 * deliveries start nothing. The key is derived from the API key, a label, the workflow and the
 * node's webhook: only this node with this key opens it; to others (logs, proxies) it is noise.
 */

export const SEAL_PARAMETER = 'ds_seal';
const LABEL = 'n8n-nodes-document-scanning webhook signing secret v1';

type Context = IHookFunctions | IWebhookFunctions;

async function keyOf(ctx: Context): Promise<Buffer> {
	const apiKey = String((await ctx.getCredentials(CREDENTIAL_TYPE)).apiKey ?? '');
	const node = ctx.getNode();
	const owner = `${String(ctx.getWorkflow().id ?? '')}/${node.webhookId ?? node.name}`;
	return createHmac('sha256', apiKey).update(`${LABEL}\n${owner}`).digest();
}

/** The seal a URL carries, if any. */
export function sealIn(url: unknown): string | undefined {
	try {
		return new URL(String(url)).searchParams.get(SEAL_PARAMETER) ?? undefined;
	} catch {
		return undefined;
	}
}

/**
 * Creates the carrier of webhook `id`'s secret. True when the service kept the seal in its URL;
 * else (a service that drops a URL's query, or a failure) the secret stays in static data only,
 * and deliveries record no repeats (each runs, with its deliveryKey), as n8n's log says.
 */
export async function createKeyCarrier(
	ctx: IHookFunctions,
	name: string,
	url: string,
	webhook: { id: string; secret: string },
): Promise<boolean> {
	const iv = randomBytes(12);
	const cipher = createCipheriv('aes-256-gcm', await keyOf(ctx), iv);
	const text = Buffer.concat([cipher.update(`${webhook.id} ${webhook.secret}`), cipher.final()]);
	const value = Buffer.concat([iv, cipher.getAuthTag(), text]).toString('base64url');
	const sealed = new URL(url);
	sealed.searchParams.set(SEAL_PARAMETER, value);
	let problem = 'the service did not keep the query of its URL';
	try {
		const body = { name, url: sealed.toString(), events: ['scan.failed'] };
		const answer = await apiRequestFull.call(ctx, { method: 'POST', path: '/webhooks', body });
		const record = unwrapRecord(answer.body);
		if (sealIn(record.url) === value) return true;
		const path = `/webhooks/${encodeURIComponent(String(record.id))}`;
		if (record.id !== undefined) await apiRequestFull.call(ctx, { method: 'DELETE', path });
	} catch (error) {
		problem = error instanceof Error ? error.message : String(error);
	}
	ctx.logger.warn(
		`Document Scanning Trigger: the signing secret could not be kept at the service (${problem}), only in the workflow's static data; repeated deliveries are therefore not recorded: each runs, with the same deliveryKey`,
	);
	return false;
}

/** The webhook IDs and secrets the service's carriers hold for this node (one GET /webhooks). */
export async function keysAtService(
	ctx: IWebhookFunctions,
): Promise<Array<{ id: string; secret: string }>> {
	const webhooks = await apiRequestList
		.call(ctx, { method: 'GET', path: '/webhooks', timeout: 5_000 })
		.catch(() => []);
	const key = await keyOf(ctx);
	return webhooks.flatMap((webhook) => {
		const bytes = Buffer.from(sealIn(webhook.url) ?? '', 'base64url');
		try {
			const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
			decipher.setAuthTag(bytes.subarray(12, 28));
			const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
			const [id, ...secret] = text.toString().split(' ');
			return [{ id, secret: secret.join(' ') }];
		} catch {
			return []; // no seal, another node's, or a rotated API key
		}
	});
}
