// e2e check of the Document Scanning Trigger's answers inside a running real n8n (issue #8).
//
// Crafted deliveries, signed with the webhook's real secret (read from the sandbox's control
// surface), go straight to the trigger's production URL in n8n:
// - a genuine one stamped now: HTTP 200 with exactly {"received":true} as JSON (n8n's own
//   answer would be the text "firstEntryJson"), which also proves that the signature is
//   verified over the raw bytes real n8n hands over;
// - the same kind stamped 10 minutes ago: late, 200 {"received":true,"late":true}, no failure at
//   the service (replay tolerance of node version 1, 300 s);
// - a signed body without "event" while X-Service-Event says scan.completed: 400, missing_event.
//
// Usage: await checkWebhookAnswers({ hook, sandboxBaseUrl, check })
//   hook: the sandbox's webhook record of the active trigger ({ id, url });
//   check(name, ok, detail) records one PASS/FAIL line (the e2e runner's function).
import { signatureHeader } from '../../../sandbox/signing.js';
import { SandboxClient } from '../sandbox-client.mjs';

const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

export async function checkWebhookAnswers({ hook, sandboxBaseUrl, check }) {
	const record = (
		await new SandboxClient(sandboxBaseUrl, '').control('GET', `/webhooks/${hook.id}`)
	).body;
	const secret = record?.secret;
	if (typeof secret !== 'string') {
		check(
			"the sandbox shows the trigger webhook's secret (for crafted deliveries)",
			false,
			JSON.stringify(Object.keys(record ?? {})),
		);
		return;
	}
	const post = async (body, event = 'scan.completed') => {
		const raw = JSON.stringify(body);
		const res = await fetch(hook.url, {
			method: 'POST',
			headers: {
				'Content-Type': 'application/json',
				'X-Service-Event': event,
				'X-Service-Signature': signatureHeader(secret, raw),
			},
			body: raw,
		});
		const text = await res.text();
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined;
		}
		return { status: res.status, type: res.headers.get('content-type') ?? '', text, json };
	};
	const data = { scan_id: 1, filename: 'e2e-crafted.pdf', template_id: 1, status: 'completed' };

	const fresh = await post({ event: 'scan.completed', timestamp: iso(Date.now()), data });
	check(
		'a signed delivery stamped now is answered 200 {"received":true} (JSON) by the trigger in n8n',
		fresh.status === 200 &&
			/application\/json/.test(fresh.type) &&
			JSON.stringify(fresh.json) === '{"received":true}',
		`${fresh.status} ${fresh.type} ${fresh.text.slice(0, 120)}`,
	);

	const stale = await post({
		event: 'scan.completed',
		timestamp: iso(Date.now() - 10 * 60_000),
		data,
	});
	check(
		'a signed delivery stamped 10 minutes ago is late in n8n: 200 {"received":true,"late":true}, nothing a failure could count (replay tolerance)',
		stale.status === 200 && JSON.stringify(stale.json) === '{"received":true,"late":true}',
		`${stale.status} ${stale.text.slice(0, 160)}`,
	);

	const noEvent = await post({ timestamp: iso(Date.now()), data });
	check(
		'a signed body without "event" is refused 400 in n8n, whatever X-Service-Event says',
		noEvent.status === 400 && noEvent.json?.error === 'missing_event',
		`${noEvent.status} ${noEvent.text.slice(0, 160)}`,
	);
}
