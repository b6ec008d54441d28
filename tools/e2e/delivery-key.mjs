// The delivery key the trigger gives a delivery's body, as docs/reference.md ("Repeated
// deliveries") states it: `<event>:<scan ID>:<digest>` of `data` without time fields and the ID,
// else `sha256:<digest>` of the body without time fields. For the e2e checks to name what they
// expect without reading it from n8n.
import { createHash } from 'node:crypto';

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON with object keys sorted and no spacing. */
function canonical(value) {
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (isObject(value))
		return `{${Object.keys(value)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
			.join(',')}}`;
	return JSON.stringify(value) ?? 'null';
}

const without = (record, left) =>
	Object.fromEntries(Object.entries(record).filter(([key]) => !left.test(key)));
const digest = (value) => createHash('sha256').update(canonical(value)).digest('hex').slice(0, 16);

/** @param {string} text the delivery's body */
export function deliveryKeyOf(text) {
	const body = JSON.parse(text);
	const data = isObject(body.data) ? body.data : undefined;
	const named = data?.scan_id ?? data?.id;
	if (data && /^[1-9][0-9]*$/.test(String(named ?? '')))
		return `${body.event}:${named}:${digest(without(data, /^timestamp$|_at$|^(scan_)?id$/))}`;
	const timeless = without(body, /^timestamp$|_at$/);
	return `sha256:${digest(data ? { ...timeless, data: without(data, /^timestamp$|_at$/) } : timeless)}`;
}
