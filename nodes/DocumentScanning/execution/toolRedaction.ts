import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE, isPlainObject } from '../../shared/transport';

/** A field whose value is a secret, whatever it holds (`secret`, `signing_key`, `api_token`, …). */
const SECRET = /secret|password|token|api_?key|signing|credential/i;
/** A URL: scheme (1), `user:password@`, address (2), query and fragment. */
const URL_PARTS = /\b([a-z][\w+.-]*:\/\/)(?:[^\s/?#@]*@)?([^\s?#"'<>]*)(?:[?#][^\s"'<>]*)?/gi;

/**
 * What a model may read of an answer or an error, at any depth, by name and by value: a field
 * named like a secret reads `[withheld]`, and so do its value, the API key and the Base URL's host
 * wherever they appear; every URL loses its `user:password@`, query and fragment.
 */
export async function redaction(ctx: IExecuteFunctions) {
	const known: string[] = [];
	try {
		const { apiKey, baseUrl } = await ctx.getCredentials(CREDENTIAL_TYPE);
		const { host, hostname } = new URL(String(baseUrl).trim());
		known.push(String(apiKey), host, hostname);
	} catch {
		// No credential or no valid Base URL: no request was sent, so no answer carries them.
	}
	const walk = (value: unknown, key: string, leaf: (v: unknown, k: string) => unknown): unknown => {
		if (Array.isArray(value)) return value.map((entry) => walk(entry, key, leaf));
		if (!isPlainObject(value)) return leaf(value, key);
		const under = (k: string) => (SECRET.test(key) ? key : k); // all of a secret is secret
		return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, under(k), leaf)]));
	};
	return (json: IDataObject): IDataObject => {
		const values = [...known]; // and every value under a secret's name, at any depth
		walk(json, '', (v, k) => SECRET.test(k) && typeof v === 'string' && values.push(v));
		const escaped = values
			.filter((v) => v.length >= 4)
			.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
		const found = new RegExp(escaped.sort((a, b) => b.length - a.length).join('|') || '$^', 'gi');
		return walk(json, '', (v, k) => {
			if (SECRET.test(k) && v !== null && v !== undefined) return '[withheld]';
			if (typeof v !== 'string') return v;
			return v.replace(found, '[withheld]').replace(URL_PARTS, '$1$2');
		}) as IDataObject;
	};
}
